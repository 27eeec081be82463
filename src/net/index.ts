/**
 * IP addresses, CIDRs, ranges and the prefix index behind `ip.src in {…}` sets and `$lists`.
 * @module
 */
export {
  type IpFamily,
  type IpAddress,
  type IpRange,
  type IpCidr,
  type IpItem,
  MAX_IPV4_TEXT_LENGTH,
  MAX_IPV6_TEXT_LENGTH,
  FAMILY_BITS,
  parseIpAddress,
  formatIpAddress,
  compareIpAddress,
  ipAddressFromBytes,
  isIpv4Mapped,
  parseIpCidr,
  cidrToRange,
  parseIpItem,
  formatIpRange,
} from './address.js';
export { IpSet, type IpSetParts, type IpItemError, type IpSetBuild, ipSetFromItems, ipSetFromText } from './ip-set.js';
export { isIpAddressText } from './fast-parse.js';
export { IP_PROTOCOL_NAMES, ipProtocolNumber } from './ip-protocols.js';
