/**
 * Counting captured frames through a compiled ruleset: the one place that chooses between numeric slots
 * and packet objects. Every record loop (a worker's pcap chunks, this thread's chunks, the general
 * pcap/pcapng reader) calls the function made here once per frame.
 * @module
 */
import type { Packet } from '../expression/index.js';
import { decodeFrameInto, decodePacket, decodeSlots, fillGeoSlots, GEO_SLOT_FIELDS, Slots, type DecodeOptions, type GeoIpLookup } from '../capture/index.js';
import type { SlotsDecider } from './decider.js';

/** What a frame counter counts into: a `CompiledRuleset` or a `PortableCounter` rebuilt on a worker. */
export interface FrameCounterTarget {
  /** The fields the rules read: the decoder skips the rest. */
  readonly fields: ReadonlySet<string>;
  /** Present when every rule reads only slot fields: frames are then decided on numbers. */
  readonly slotsDecider: SlotsDecider | undefined;
  count(packet: Packet, index: number, transient?: boolean): number;
  countSlots(V: Float64Array, W: Uint32Array, index: number, example: () => Packet): number;
}

/** Where the decoder gets what a frame does not hold. */
export interface FrameOptions {
  /** Country/ASN of addresses, for rules that read them. */
  geoip?: GeoIpLookup;
  /** The data center that saw the packets (`cf.colo.name`). */
  colo?: { name: string };
}

/** Count the frame `bytes[start, end)` of link type `linkType` as packet number `index`; returns the deciding rule or -1. */
export type FrameCounter = (bytes: Uint8Array, start: number, end: number, linkType: number, index: number) => number;

/**
 * A frame counter for `target`. HOT PATH (bench/decide.ts): with a slots decider the frame is decoded
 * into typed arrays and no packet object is built unless the summary keeps the frame as an example;
 * otherwise one packet object is refilled for every frame (the tally copies the ones it keeps).
 */
export function frameCounter(target: FrameCounterTarget, options: FrameOptions = {}): FrameCounter {
  const decode: DecodeOptions = { fields: target.fields, geoip: options.geoip, colo: options.colo, problems: false, fixedShape: true };
  const exampleOptions: DecodeOptions = { fields: target.fields, geoip: options.geoip, colo: options.colo, problems: false };
  // The frame being counted, for the example builder: one closure for all frames, nothing allocated per frame.
  let frame = new Uint8Array(0);
  let frameStart = 0;
  let frameEnd = 0;
  let frameLink = 1;
  const example = () => decodePacket({ linkType: frameLink, data: frame.slice(frameStart, frameEnd) }, exampleOptions).packet as Packet;
  if (target.slotsDecider) {
    // Only the fields the rules read are decoded (the others stay missing, which no rule sees): `sip`
    // searches the payload of every TCP and UDP packet, the flags and addresses are stores per frame.
    // An example kept is decoded again from the frame, as a packet object.
    const slots = new Slots().only(target.fields);
    // Country/ASN slots are looked up on the integer addresses, only when the rules read them.
    const geo = options.geoip && GEO_SLOT_FIELDS.some((f) => target.fields.has(f)) ? options.geoip : undefined;
    const geoSource = target.fields.has('ip.src.country') || target.fields.has('ip.src.asnum');
    const geoDestination = target.fields.has('ip.dst.country') || target.fields.has('ip.dst.asnum');
    return (bytes, start, end, linkType, index) => {
      frame = bytes;
      frameStart = start;
      frameEnd = end;
      frameLink = linkType;
      decodeSlots(slots, bytes, start, end, linkType);
      if (geo !== undefined) fillGeoSlots(slots, geo, geoSource, geoDestination);
      return target.countSlots(slots.V, slots.W, index, example);
    };
  }
  const packet = decodePacket({ linkType: 1, data: new Uint8Array(0) }, decode).packet;
  return (bytes, start, end, linkType, index) => {
    decodeFrameInto(packet, bytes, start, end, linkType, decode);
    return target.count(packet as Packet, index, true);
  };
}
