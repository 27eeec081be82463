/**
 * The API report of each public entry point (API Extractor's `.api.md`): every exported name with its
 * signature, from the built declarations. `npm run api-report` rewrites them after a deliberate change;
 * test/meta/api-report.test.ts fails when the built API differs from the committed report.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

/** Entry points: package subpath → built declaration file. */
export const API_ENTRIES: Readonly<Record<string, string>> = {
  rulekit: 'dist/index.d.ts',
  'rulekit-logpush': 'dist/logpush/index.d.ts',
  'rulekit-capture': 'dist/capture/index.d.ts',
  'rulekit-http': 'dist/http/index.d.ts',
  'rulekit-language': 'dist/language/index.d.ts',
  'rulekit-node': 'dist/simulation/index.d.ts',
  'rulekit-server': 'dist/server/index.d.ts',
};

export const REPORT_DIR = 'docs/api-report';

/** Build each report; with `update` write them into REPORT_DIR, else return the ones that differ. */
export function apiReports(update: boolean): { name: string; expected: string; actual: string }[] {
  const root = resolve(import.meta.dirname, '..');
  const scratch = mkdtempSync(join(tmpdir(), 'rulekit-api-'));
  const differ: { name: string; expected: string; actual: string }[] = [];
  try {
    for (const [name, entry] of Object.entries(API_ENTRIES)) {
      const config = ExtractorConfig.prepare({
        configObject: {
          projectFolder: root,
          mainEntryPointFilePath: join(root, entry),
          compiler: { tsconfigFilePath: join(root, 'tsconfig.build.json') },
          apiReport: { enabled: true, reportFileName: `${name}.api.md`, reportFolder: join(root, REPORT_DIR), reportTempFolder: scratch },
          docModel: { enabled: false },
          dtsRollup: { enabled: false },
          tsdocMetadata: { enabled: false },
          messages: {
            extractorMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
            compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
            tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
          },
        },
        configObjectFullPath: join(root, 'api-extractor.json'),
        packageJsonFullPath: join(root, 'package.json'),
      });
      mkdirSync(join(root, REPORT_DIR), { recursive: true });
      let expected = '';
      try {
        expected = readFileSync(join(root, REPORT_DIR, `${name}.api.md`), 'utf8');
      } catch {
        // no committed report yet
      }
      Extractor.invoke(config, { localBuild: update, showVerboseMessages: false, messageCallback: (m) => void (m.handled = true) });
      const actual = readFileSync(join(scratch, `${name}.api.md`), 'utf8');
      if (actual.replace(/\r\n/g, '\n') !== expected.replace(/\r\n/g, '\n')) differ.push({ name, expected, actual });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return differ;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const changed = apiReports(true);
  console.log(changed.length ? `updated ${changed.map((c) => `${REPORT_DIR}/${c.name}.api.md`).join(', ')}` : 'API reports unchanged');
}
