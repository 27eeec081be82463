/** Diagnostic codes of packet capture reading and decoding. @module */
import type { DiagnosticCodeInfo } from '../diagnostics/index.js';

/** Codes of the capture module, each with its default severity and meaning. */
export const CAPTURE_CODES = {
  'capture-empty': { severity: 'error', doc: 'The capture source held no bytes at all.' },
  'capture-unknown-format': {
    severity: 'error',
    doc: 'The first bytes are neither a pcap nor a pcapng magic number; nothing was read.',
  },
  'capture-truncated-header': {
    severity: 'error',
    doc: 'The input ended inside the pcap file header or the pcapng section header; nothing was read.',
  },
  'capture-truncated-record': {
    severity: 'warning',
    doc: 'The input ended inside a record or block; the partial record was skipped.',
  },
  'capture-corrupt-record': {
    severity: 'error',
    doc: 'A record header or block length is impossible (too long, misaligned, lengths disagree); the reader skipped ahead.',
  },
  'capture-resynchronised': {
    severity: 'info',
    doc: 'After a corrupt record the reader found the next plausible record and went on from there.',
  },
  'capture-resync-failed': {
    severity: 'error',
    doc: 'After a corrupt record no plausible record was found within the scan limit; reading stopped.',
  },
  'capture-bad-block': {
    severity: 'warning',
    doc: 'A pcapng block has a sound frame but contents that do not fit in it; the block was skipped.',
  },
  'capture-unknown-interface': {
    severity: 'warning',
    doc: 'A pcapng packet block names an interface that no Interface Description Block declared; it was skipped.',
  },
  'capture-bad-chunk': {
    severity: 'error',
    doc: 'The source produced something other than bytes (Uint8Array/ArrayBuffer), or failed while being read.',
  },
  'capture-too-many-diagnostics': {
    severity: 'warning',
    doc: 'The diagnostic limit was reached; further diagnostics of this capture were counted but not kept.',
  },
  'capture-bad-record': {
    severity: 'error',
    doc: 'The decoder was given a record without byte data (a Uint8Array `data`); nothing was decoded.',
  },
  'capture-unsupported-link-type': {
    severity: 'warning',
    doc: 'The record has a link type the decoder does not read (802.11/radiotap, …); no IP fields were decoded, so every field is missing for it. A simulation names each such link type once.',
  },
  'capture-not-ip': {
    severity: 'info',
    doc: 'The frame carries something other than IPv4/IPv6 (ARP, LLDP, ...); no IP fields were decoded.',
  },
  'capture-truncated-packet': {
    severity: 'warning',
    doc: 'A header of the packet is cut short by the capture length; the fields before the cut were decoded.',
  },
  'capture-bad-ip-header': {
    severity: 'warning',
    doc: 'The IP header is malformed (wrong version, header length below the minimum); decoding stopped there.',
  },
  'capture-ip-fragment': {
    severity: 'info',
    doc: 'A non-first IP fragment: it carries no transport header, so transport fields are missing.',
  },
  'capture-geoip-bad-line': {
    severity: 'warning',
    doc: 'A line of a cidr,country,asn table could not be read (bad CIDR, country or ASN); it was skipped.',
  },
  'capture-geoip-duplicate': {
    severity: 'warning',
    doc: 'The same CIDR appears twice in a geo/ASN table; the later line wins.',
  },
  'capture-geoip-too-large': {
    severity: 'error',
    doc: 'A geo/ASN table breaches a size limit (characters or lines); the rest was not read.',
  },
  'capture-mmdb-invalid': {
    severity: 'error',
    doc: 'The bytes are not a readable MaxMind DB (.mmdb) file.',
  },
  'capture-mmdb-unavailable': {
    severity: 'error',
    doc: 'The .mmdb reader library could not be loaded in this environment (it needs a Buffer implementation).',
  },
} as const satisfies Record<string, DiagnosticCodeInfo>;

/** A code of the capture module. */
export type CaptureCode = keyof typeof CAPTURE_CODES;
