/**
 * `ip.proto` names of the capture decoder. The table lives in `src/net/` so that the expression checker
 * reads the same names without depending on the capture module.
 * @module
 */
export { IP_PROTOCOL_NAMES, ipProtocolNumber } from '../net/index.js';
