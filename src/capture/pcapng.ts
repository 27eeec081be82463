/**
 * The pcapng block format (draft-ietf-opsawg-pcapng): block types, Interface Description Blocks and the
 * timestamp units they declare (`if_tsresol`, `if_tsoffset`).
 * @module
 */

/** Block types this reader knows. Unknown block types are skipped. */
export const BlockType = {
  SectionHeader: 0x0a0d0d0a,
  InterfaceDescription: 0x00000001,
  /** Obsolete Packet Block (read for old files). */
  Packet: 0x00000002,
  SimplePacket: 0x00000003,
  NameResolution: 0x00000004,
  InterfaceStatistics: 0x00000005,
  EnhancedPacket: 0x00000006,
  DecryptionSecrets: 0x0000000a,
  Custom: 0x00000bad,
  CustomNoCopy: 0x40000bad,
} as const;

/** Block types accepted as the restart point after a corrupt block. */
export const RESYNC_BLOCK_TYPES: ReadonlySet<number> = new Set(Object.values(BlockType));

/** Byte-order magic of a Section Header Block. */
export const BYTE_ORDER_MAGIC = 0x1a2b3c4d;

/** One interface declared in the current section, with its timestamp conversion precomputed. */
export interface PcapngInterface {
  linkType: number;
  snapLength: number;
  /** `if_tsresol` as written (default 6: microseconds). */
  tsresol: number;
  /** `if_tsoffset` in seconds (default 0). */
  tsoffset: bigint;
  /** ns = ((units * mulB) / divB) >> shiftB + offsetB */
  mulB: bigint;
  divB: bigint;
  shiftB: bigint;
  offsetB: bigint;
  /** ns ≈ units * mulN / divN + offsetN */
  mulN: number;
  divN: number;
  offsetN: number;
}

const OPT_ENDOFOPT = 0;
const OPT_IF_TSRESOL = 9;
const OPT_IF_TSOFFSET = 14;

/** Build the interface record of an IDB whose body starts at `pos` (after type and length) and whose options end at `end`. */
export function readInterface(view: DataView, pos: number, end: number, le: boolean): PcapngInterface {
  const linkType = view.getUint16(pos, le);
  const snapLength = view.getUint32(pos + 4, le);
  let tsresol = 6;
  let tsoffset = 0n;
  let p = pos + 8;
  while (p + 4 <= end) {
    const code = view.getUint16(p, le);
    const len = view.getUint16(p + 2, le);
    if (code === OPT_ENDOFOPT) break;
    const value = p + 4;
    if (value + len > end) break;
    if (code === OPT_IF_TSRESOL && len >= 1) tsresol = view.getUint8(value);
    else if (code === OPT_IF_TSOFFSET && len >= 8) tsoffset = view.getBigInt64(value, le);
    p = value + ((len + 3) & ~3);
  }
  return withTimestampUnits(linkType, snapLength, tsresol, tsoffset);
}

/** An interface record with the conversion of its timestamp units to nanoseconds. */
export function withTimestampUnits(linkType: number, snapLength: number, tsresol: number, tsoffset: bigint): PcapngInterface {
  const exp = tsresol & 0x7f;
  let mulB = 1n;
  let divB = 1n;
  let shiftB = 0n;
  let mulN = 1;
  let divN = 1;
  if (tsresol & 0x80) {
    // 2^-exp seconds per unit
    mulB = 1_000_000_000n;
    shiftB = BigInt(exp);
    mulN = 1e9;
    divN = 2 ** exp;
  } else if (exp <= 9) {
    mulB = 10n ** BigInt(9 - exp);
    mulN = 10 ** (9 - exp);
  } else {
    divB = 10n ** BigInt(exp - 9);
    divN = 10 ** (exp - 9);
  }
  const offsetB = tsoffset * 1_000_000_000n;
  return { linkType, snapLength, tsresol, tsoffset, mulB, divB, shiftB, offsetB, mulN, divN, offsetN: Number(offsetB) };
}

/** Convert a 64-bit timestamp (high and low words) in the interface's units to nanoseconds. */
export function interfaceTimestamp(i: PcapngInterface, high: number, low: number, asNumber: boolean): bigint | number {
  if (asNumber) return ((high * 4294967296 + low) * i.mulN) / i.divN + i.offsetN;
  const units = (BigInt(high) << 32n) | BigInt(low);
  return (((units * i.mulB) / i.divB) >> i.shiftB) + i.offsetB;
}
