/**
 * The JSON Schema of `rulekit.config.json`, shipped as schemas/rulekit.config.schema.json (written by
 * `npm run docs:gen`): its members and their descriptions come from the loader's CONFIG_MEMBERS table,
 * the codes of `severity` and `ignore` from DIAGNOSTIC_CODES. test/lint/config-schema.test.ts holds the file
 * against this and the schema against the loader.
 */
import { DIAGNOSTIC_CODES } from '../src/index.js';
import { CONFIG_MEMBERS } from '../src/lint/index.js';

/** Where the package ships it. */
export const CONFIG_SCHEMA_PATH = 'schemas/rulekit.config.schema.json';
/** The VS Code extension's copy (its package holds only its own folder), named by its jsonValidation. */
export const VSCODE_CONFIG_SCHEMA_PATH = 'editors/vscode/schemas/rulekit.config.schema.json';

/** The words `severity` takes (severitySetting in src/lint/config.ts). */
const LEVELS = ['off', 'hint', 'info', 'warn', 'warning', 'error'];

export function configSchema(): Record<string, unknown> {
  const codes = Object.keys(DIAGNOSTIC_CODES).sort();
  const fileOr = (object: Record<string, unknown>) => ({ anyOf: [{ type: 'string', minLength: 1 }, object] });
  const shapes: Record<keyof typeof CONFIG_MEMBERS, Record<string, unknown>> = {
    $schema: { type: 'string' },
    lists: fileOr({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }),
    scheme: fileOr({ type: 'object', additionalProperties: { type: 'string' } }),
    serviceToken: { type: 'string' },
    severity: { type: 'object', propertyNames: { enum: codes }, additionalProperties: { enum: LEVELS } },
    exclude: { type: 'array', items: { type: 'string' } },
    maxSeverity: { enum: ['error', 'warning', 'warn', 'info', 'hint'] },
    ignore: {
      type: 'array',
      items: {
        type: 'object',
        required: ['file', 'pointer'],
        additionalProperties: false,
        properties: {
          file: { type: 'string', minLength: 1, description: 'A glob or path relative to the config file.' },
          pointer: { type: 'string', pattern: '^(/.*)?$', description: 'An RFC 6901 JSON pointer such as /rules/0/expression ("" for the whole file).' },
          code: { enum: codes, description: 'Only this code (default: every code).' },
        },
      },
    },
  };
  const properties = Object.fromEntries(Object.entries(CONFIG_MEMBERS).map(([k, doc]) => [k, { description: doc, ...shapes[k as keyof typeof CONFIG_MEMBERS] }]));
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'rulekit.config.json',
    description: 'Configuration of rulekit lint and the rulekit language server (docs/guides/linting-in-ci.md).',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}

/** The file's text. */
export function configSchemaText(): string {
  return JSON.stringify(configSchema(), null, 2) + '\n';
}
