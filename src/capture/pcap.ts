/**
 * The classic libpcap file format: magic numbers, the 24-byte file header and record-header plausibility
 * (used to find the next record after a corrupt one). Layout per the libpcap file format description
 * (draft-ietf-opsawg-pcap): all fields in the writer's byte order, which the magic number reveals.
 * @module
 */
import { BlockType } from './pcapng.js';

/** What the first four bytes of a classic pcap file say. */
export interface PcapMagic {
  littleEndian: boolean;
  /** Nanosecond timestamps (magic 0xa1b23c4d) rather than microseconds. */
  nanos: boolean;
  /** Alexey Kuznetzov's "modified" pcap (magic 0xa1b2cd34): 24-byte record headers. */
  modified: boolean;
}

/** The pcap file header. */
export interface PcapHeader extends PcapMagic {
  versionMajor: number;
  versionMinor: number;
  snapLength: number;
  /** LINKTYPE_* (low 16 bits of the header's link-type field; the upper bits carry FCS information). */
  linkType: number;
  /** Bytes of each record header: 16, or 24 for the modified format. */
  recordHeaderBytes: number;
}

/** Size of the pcap file header. */
export const PCAP_HEADER_BYTES = 24;

const MAGICS: ReadonlyArray<readonly [number, Omit<PcapMagic, 'littleEndian'>]> = [
  [0xa1b2c3d4, { nanos: false, modified: false }],
  [0xa1b23c4d, { nanos: true, modified: false }],
  [0xa1b2cd34, { nanos: false, modified: true }],
];

/** Recognise a pcap magic number at `pos`, in either byte order. */
export function pcapMagic(view: DataView, pos: number): PcapMagic | undefined {
  const be = view.getUint32(pos, false);
  const le = view.getUint32(pos, true);
  for (const [magic, kind] of MAGICS) {
    if (be === magic) return { ...kind, littleEndian: false };
    if (le === magic) return { ...kind, littleEndian: true };
  }
  return undefined;
}

/** Read the 24-byte file header at `pos` (the magic has been recognised). */
export function readPcapHeader(view: DataView, pos: number, magic: PcapMagic): PcapHeader {
  const le = magic.littleEndian;
  return {
    ...magic,
    versionMajor: view.getUint16(pos + 4, le),
    versionMinor: view.getUint16(pos + 6, le),
    snapLength: view.getUint32(pos + 16, le),
    linkType: view.getUint32(pos + 20, le) & 0xffff,
    recordHeaderBytes: magic.modified ? 24 : 16,
  };
}

/**
 * Whether a record header at `pos` looks real: fractional seconds in range, captured length within the
 * limits and not above the original length, and (when a previous record is known) a time within a week
 * of it. Only used to find the next record after a corrupt one, so it errs on the strict side.
 */
export function plausiblePcapRecord(
  view: DataView,
  pos: number,
  header: PcapHeader,
  maxPacketBytes: number,
  lastSeconds: number | undefined,
): boolean {
  const le = header.littleEndian;
  const sec = view.getUint32(pos, le);
  const frac = view.getUint32(pos + 4, le);
  const caplen = view.getUint32(pos + 8, le);
  const origlen = view.getUint32(pos + 12, le);
  if (frac >= (header.nanos ? 1_000_000_000 : 1_000_000)) return false;
  if (caplen > maxPacketBytes || caplen > origlen || origlen === 0) return false;
  if (header.snapLength > 0 && caplen > header.snapLength) return false;
  if (origlen > 0x4000000) return false;
  if (lastSeconds !== undefined && Math.abs(sec - lastSeconds) > 7 * 86400) return false;
  return true;
}

/** The first four bytes of a pcapng file (a Section Header Block's type, the same in both byte orders). */
export const PCAPNG_MAGIC = BlockType.SectionHeader;

/** Which capture format the first bytes of a file announce: the one table the reader and the simulator share. */
export function captureFormatOf(head: Uint8Array): 'pcap' | 'pcapng' | undefined {
  if (head.length < 4) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, false) === PCAPNG_MAGIC) return 'pcapng';
  return pcapMagic(view, 0) ? 'pcap' : undefined;
}

/** The header of a classic pcap file from its first 24 bytes, or undefined when they are not one. */
export function pcapHeaderOf(head: Uint8Array): PcapHeader | undefined {
  if (head.length < PCAP_HEADER_BYTES) return undefined;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const magic = pcapMagic(view, 0);
  return magic ? readPcapHeader(view, 0, magic) : undefined;
}
