import { ServiceUnavailableError } from "../errors/service-unavailable-error.ts";

/**
 * The LDAP directory could not answer a lookup or a password check: down, slow, refusing the service
 * account, or every connection busy. The message says which, without the password or the person asked about.
 */
export class DirectoryUnavailableError extends ServiceUnavailableError {
  static override readonly code: string = "ERR_DIRECTORY_UNAVAILABLE";
  override readonly code: string = "ERR_DIRECTORY_UNAVAILABLE";
  override readonly name: string = "DirectoryUnavailableError";

  constructor(reason: string, options?: { cause?: unknown }) {
    super("directory", `the directory is unavailable: ${reason}`, options);
  }
}
