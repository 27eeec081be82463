/** Writes editors/vscode/syntaxes/rulekit.tmLanguage.json from the token table. `npm run vscode:grammar`. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { TM_LANGUAGE_PATH, tmLanguageText } from './tmlanguage.js';

mkdirSync(dirname(TM_LANGUAGE_PATH), { recursive: true });
writeFileSync(TM_LANGUAGE_PATH, tmLanguageText());
console.log(`wrote ${TM_LANGUAGE_PATH}`);
