/** Shapes shared by the capture reader and the packet decoder. @module */
import type { CaptureDiagnostic } from './diagnostic.js';

/** The container format of a capture file. */
export type CaptureFormat = 'pcap' | 'pcapng';

/** One packet record read from a capture file. */
export interface CaptureRecord {
  /** 0-based position among the records this reader produced (skipped corrupt records are not counted). */
  index: number;
  /** Byte offset of the record (pcap record header, pcapng block) in the file. */
  offset: number;
  /** LINKTYPE_* value of the record's interface (1 Ethernet, 101 raw IP, 113/276 Linux cooked, ...). */
  linkType: number;
  /** pcapng interface id; always 0 for pcap. */
  interfaceId: number;
  /**
   * Capture time in nanoseconds since the Unix epoch: a `bigint` (exact, the default) or a `number`
   * (`timestamps: 'number'`: faster, exact only to about 256 ns for present-day dates).
   */
  timestampNs: bigint | number;
  /** Bytes of the packet present in the file (`data.length`). */
  capturedLength: number;
  /** Length of the packet on the wire. */
  originalLength: number;
  /**
   * The captured bytes. A view into the reader's input chunk (no copy) unless `copyData` is set: keep
   * `copyData: true` if you hold on to many records, or each one keeps its whole chunk alive.
   */
  data: Uint8Array;
}

/** Options of {@link readCapture} and {@link CaptureParser}. */
export interface ReadCaptureOptions {
  /** Called with each diagnostic as soon as it is found (also collected in the summary). */
  onDiagnostic?: (diagnostic: CaptureDiagnostic) => void;
  /** `bigint` (default, exact) or `number` timestamps; see {@link CaptureRecord.timestampNs}. */
  timestamps?: 'bigint' | 'number';
  /** Copy each record's bytes out of the input chunk (default false: a zero-copy view). */
  copyData?: boolean;
  /** Largest packet a record may hold before it counts as corrupt (default 262144, libpcap's maximum snap length). */
  maxPacketBytes?: number;
  /** Largest pcapng block before it counts as corrupt (default 16 MiB). */
  maxBlockBytes?: number;
  /** How far past a corrupt record the reader scans for the next plausible one (default 4 MiB). */
  maxResyncBytes?: number;
  /** Diagnostics kept in the summary at most (default 1000; later ones are counted). */
  maxDiagnostics?: number;
}

/** What a whole read produced besides the records: the return value of {@link readCapture}. */
export interface CaptureSummary {
  /** Detected format, when the magic number was recognised. */
  format?: CaptureFormat;
  /** Records produced. */
  records: number;
  /** Bytes consumed from the source. */
  bytes: number;
  /** Diagnostics, in file order, at most `maxDiagnostics`. */
  diagnostics: CaptureDiagnostic[];
  /** Diagnostics found beyond the limit (not kept). */
  droppedDiagnostics: number;
  /** False when reading stopped early (unknown format, failed resynchronisation). */
  complete: boolean;
}
