import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";
import { readSchema, type ConfigFileEntry } from "./config-files.ts";
import type { ConfigFileName } from "./cross-field-rule.ts";
import { describeSchemaError } from "./describe-schema-error.ts";
import type { IssueDraft } from "./issue-draft.ts";

// ajv-formats is CommonJS: under NodeNext the default import is `module.exports`, whose `.default` is the plugin.
const addFormats = addFormatsModule.default;

/**
 * Schema validation of one parsed file. strict: a schema typo is a bug, not something to skip;
 * allErrors: report everything at once; useDefaults: after validation every defaulted key is present,
 * which is what the generated types promise. verbose gives each error its schema and data, which the
 * messages need.
 */
let ajv: Ajv | undefined;
const validators = new Map<ConfigFileName, ValidateFunction>();

function validatorFor(entry: Pick<ConfigFileEntry, "name" | "schema">): ValidateFunction {
  let validate = validators.get(entry.name);
  if (!validate) {
    ajv ??= createAjv();
    // Compiled once per process: compiling is slow and ajv refuses a second schema with the same $id.
    validate = ajv.compile(readSchema(entry));
    validators.set(entry.name, validate);
  }
  return validate;
}

function createAjv(): Ajv {
  const instance = new Ajv({ strict: true, allErrors: true, useDefaults: true, verbose: true });
  addFormats(instance);
  return instance;
}

/** Validates (and fills defaults into) `data`; returns one draft per schema error. */
export function validateSchema(entry: Pick<ConfigFileEntry, "name" | "schema">, data: unknown): IssueDraft[] {
  const validate = validatorFor(entry);
  if (validate(data)) return [];
  return (validate.errors ?? []).map((error) => ({ file: entry.name, ...describeSchemaError(error) }));
}

/** Compiles the schemas of these files; lets a test or the CLI prove the schemas themselves are valid. */
export function compileSchemas(files: readonly ConfigFileEntry[]): void {
  for (const file of files) validatorFor(file);
}
