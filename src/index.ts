/**
 * rulekit — a toolkit for the two small languages of an edge network's ruleset and log push
 * configuration API: network rule expressions and Logpush filters. Parse, check, evaluate, simulate.
 *
 * Everything exported here runs in Node 20 and in a browser, and never throws on bad input: problems
 * come back as {@link Diagnostic}s `{code, severity, message, range or pointer, fix?}`.
 * @module rulekit
 */
export * from './diagnostics/index.js';
export * from './expression/index.js';
export * from './net/index.js';
export * from './ruleset/index.js';
export * from './logpush/index.js';
export * from './export/index.js';
export {
  readCapture,
  readCaptureAll,
  readCaptureBatches,
  CaptureParser,
  decodePacket,
  geoIpFromCsv,
  geoIpFromMmdb,
  combineGeoIp,
  GeoIpTable,
  CAPTURE_CODES,
  DECODED_FIELDS,
  LINK_LAYERS,
  IP_PROTOCOL_NAMES,
  ipProtocolNumber,
  type CaptureRecord,
  type CaptureSummary,
  type CaptureSource,
  type ReadCaptureOptions,
  type DecodeOptions,
  type DecodeResult,
  type GeoIpLookup,
  type GeoIpInfo,
  type Packet as DecodedPacket,
} from './capture/index.js';
