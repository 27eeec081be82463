/** Exports of rules to other tools' languages. @module */
export { EXPORT_CODES, type ExportCode } from './codes.js';
export { toWireshark, WIRESHARK_FIELDS, type WiresharkExport } from './wireshark.js';
