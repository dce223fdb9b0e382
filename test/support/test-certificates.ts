/**
 * A certificate authority and a server certificate for 127.0.0.1, made with the machine's openssl
 * (Debian package `openssl`) in a temporary directory: for suites that put TLS in front of a test server.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { findOnPath } from "./services.ts";
import { unavailable } from "./require-service.ts";

const run = promisify(execFile);

export interface TestCertificates {
  /** PEM files: the CA's certificate (what a client trusts), the server's key and certificate. */
  caFile: string;
  keyFile: string;
  certFile: string;
  key: string;
  cert: string;
  remove(): void;
}

/** True when openssl can be run here; otherwise says so in one loud line (and throws under CI). */
export function opensslAvailable(suite: string): boolean {
  return findOnPath("openssl") !== undefined || unavailable(suite, "openssl not installed (apt-get install openssl)");
}

/** A new CA, and a certificate it signs for the IP address 127.0.0.1 (and the name localhost). */
export async function makeTestCertificates(): Promise<TestCertificates> {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-tls-"));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => run("openssl", args);
  await openssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=Portcullis test CA",
    "-keyout",
    at("ca.key"),
    "-out",
    at("ca.pem"),
  );
  await openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", at("server.key"), "-out", at("server.csr"));
  writeFileSync(at("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  await openssl(
    "x509",
    "-req",
    "-in",
    at("server.csr"),
    "-CA",
    at("ca.pem"),
    "-CAkey",
    at("ca.key"),
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    at("server.ext"),
    "-out",
    at("server.pem"),
  );
  return {
    caFile: at("ca.pem"),
    keyFile: at("server.key"),
    certFile: at("server.pem"),
    key: readFileSync(at("server.key"), "utf8"),
    cert: readFileSync(at("server.pem"), "utf8"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
