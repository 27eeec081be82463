/** Diagnostic codes of exports to other tools' languages. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

/** Codes of the export module, each with its default severity and meaning. */
export const EXPORT_CODES = {
  'no-wireshark-equivalent': { severity: 'error', doc: 'A part of the expression that Wireshark display filters cannot say (countries, ASNs, data centers, SIP, regex on ip.proto, an unknown list).' },
  'wireshark-approximation': { severity: 'warning', doc: 'A part exported with slightly different meaning (IPv6 extension headers and ip.proto, ip.hdr_len on IPv6).' },
} as const satisfies Record<string, DiagnosticCodeInfo>;

/** A code of the export module. */
export type ExportCode = keyof typeof EXPORT_CODES;
