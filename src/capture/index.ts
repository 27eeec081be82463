/**
 * Packet captures: streaming pcap/pcapng reading, link-layer and IP/TCP/UDP/ICMP decoding into the
 * expression language's packet fields, and country/ASN tables (CSV and MaxMind .mmdb).
 * Browser-safe: no Node built-ins (the .mmdb reader needs a Buffer implementation, loaded lazily).
 * @module
 */
export { CAPTURE_CODES, type CaptureCode } from './codes.js';
export { captureDiagnostic, type CaptureDiagnostic } from './diagnostic.js';
export type { CaptureFormat, CaptureRecord, CaptureSummary, ReadCaptureOptions } from './types.js';
export { CaptureParser } from './parser.js';
export { readCapture, readCaptureAll, readCaptureBatches, readBatchesWith, type CaptureSource } from './read.js';
export { captureFormatOf, pcapHeaderOf, PCAP_HEADER_BYTES, type PcapHeader } from './pcap.js';
export { decodePacket, decodeFrameInto, type DecodeInput, type DecodeOptions, type DecodeResult } from './decode.js';
export { decodeSlots, fillGeoSlots, geoName, geoNameId, Slots, SLOT_FIELDS, GEO_SLOT_FIELDS, SLOT, SLOT_KIND, SLOT_COUNT, IP_WORDS, allSlotFields, type SlotKind } from './slots.js';
export { DECODED_FIELDS, FIELD_GROUPS, fieldMask, type Packet } from './fields.js';
export { IP_PROTOCOL_NAMES, ipProtocolNumber } from './ip-protocols.js';
export { LINK_LAYERS, type LinkLayer } from './link-types.js';
export { ipv4Text, ipv6Text, ipv4TextOfNumber, ipv6TextOfWords } from './address-text.js';
export { GeoIpTable, combineGeoIp, type GeoIpEntry, type GeoIpInfo, type GeoIpLookup } from './geoip.js';
export { geoIpFromCsv, type GeoIpCsvOptions, type GeoIpLoad } from './geoip-csv.js';
export { geoIpFromMmdb } from './geoip-mmdb.js';
export { packetToIpFrame, writePcap, LINKTYPE_RAW } from './write.js';
