/**
 * schemas/rulekit.config.schema.json against the config loader: the file is the generated one, its members
 * are exactly the loader's, `severity` and `ignore` enumerate every known code, the package ships it, and
 * on sample configs the schema and the loader agree on what is valid.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { DIAGNOSTIC_CODES } from '../../src/index.js';
import { CONFIG_MEMBERS, loadConfig } from '../../src/lint/index.js';
import { CONFIG_SCHEMA_PATH, configSchemaText, VSCODE_CONFIG_SCHEMA_PATH } from '../../scripts/config-schema.js';

const ROOT = join(import.meta.dirname, '..', '..');
const schema = JSON.parse(readFileSync(join(ROOT, CONFIG_SCHEMA_PATH), 'utf8'));

describe('the config\'s JSON Schema', () => {
  it('is current (run `npm run docs:gen` after changing the loader\'s members or a code table)', () => {
    expect(readFileSync(join(ROOT, CONFIG_SCHEMA_PATH), 'utf8')).toBe(configSchemaText());
  });

  it('has exactly the members the loader accepts, and every known code', () => {
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(CONFIG_MEMBERS).sort());
    expect([...schema.properties.severity.propertyNames.enum].sort()).toEqual(Object.keys(DIAGNOSTIC_CODES).sort());
    expect([...schema.properties.ignore.items.properties.code.enum].sort()).toEqual(Object.keys(DIAGNOSTIC_CODES).sort());
  });

  it('VS Code validates rulekit.config.json with it (the extension\'s jsonValidation names its current copy)', () => {
    const ext = JSON.parse(readFileSync(join(ROOT, 'editors', 'vscode', 'package.json'), 'utf8')) as { contributes: { jsonValidation?: { fileMatch: string; url: string }[] } };
    const entry = ext.contributes.jsonValidation?.find((j) => j.fileMatch === 'rulekit.config.json');
    expect(entry).toBeDefined();
    expect(join(ROOT, 'editors', 'vscode', entry!.url)).toBe(join(ROOT, VSCODE_CONFIG_SCHEMA_PATH));
    expect(readFileSync(join(ROOT, VSCODE_CONFIG_SCHEMA_PATH), 'utf8')).toBe(configSchemaText());
  });

  it('ships in the package', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files.some((f) => CONFIG_SCHEMA_PATH === f || CONFIG_SCHEMA_PATH.startsWith(f.replace(/\/?$/, '/')))).toBe(true);
  });

  it('agrees with the loader on valid and invalid configs', () => {
    const validate = new (Ajv as unknown as typeof Ajv.default)({ strict: true, allErrors: true }).compile(schema);
    const dir = mkdtempSync(join(tmpdir(), 'rulekit-schema-'));
    const path = join(dir, 'rulekit.config.json');
    const loads = (config: unknown) => {
      writeFileSync(path, JSON.stringify(config));
      try {
        loadConfig(path);
        return true;
      } catch {
        return false;
      }
    };
    const samples: [unknown, boolean][] = [
      [{}, true],
      [{ $schema: './node_modules/rulekit/schemas/rulekit.config.schema.json', lists: 'lists.json', scheme: { 'http.host': 'String' }, serviceToken: 'cf' }, true],
      [{ severity: { 'comma-in-set': 'off', 'lint-unused-suppression': 'error', 'octal-literal': 'warn' } }, true],
      [{ exclude: ['generated/'], maxSeverity: 'warning' }, true],
      [{ ignore: [{ file: 'rulesets/*.json', pointer: '/rules/0/expression', code: 'octal-literal' }, { file: 'a.json', pointer: '' }] }, true],
      [{ colour: true }, false],
      [{ severity: { 'comma-in-sett': 'off' } }, false],
      [{ severity: { 'comma-in-set': 'loud' } }, false],
      [{ maxSeverity: 'off' }, false],
      [{ exclude: 'generated/' }, false],
      [{ lists: 3 }, false],
      [{ ignore: [{ file: 'a.json', pointer: 'rules/0' }] }, false],
      [{ ignore: [{ file: 'a.json' }] }, false],
      [{ ignore: [{ file: 'a.json', pointer: '/x', code: 'nope' }] }, false],
      [{ ignore: [{ file: 'a.json', pointer: '/x', why: 'legacy' }] }, false],
      [[], false],
    ];
    for (const [config, valid] of samples) {
      expect(validate(config), `schema: ${JSON.stringify(config)}`).toBe(valid);
      expect(loads(config), `loader: ${JSON.stringify(config)}`).toBe(valid);
    }
  });
});
