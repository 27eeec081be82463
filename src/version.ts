/**
 * rulekit's version, as package.json gives it. Written out here (not imported from package.json) so that
 * the core stays one browser bundle without the manifest in it; test/meta/version.test.ts holds the two equal.
 * @module
 */
export const VERSION = '0.1.0';
