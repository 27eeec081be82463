/**
 * Terraform resources older than `cloudflare_ruleset` whose rules the diff (`rulekit diff`, the LSP's lenses) reads as a ruleset of
 * the phase that replaced them. `cloudflare_magic_firewall_ruleset` (provider v4) holds an account's
 * Magic Firewall rules, evaluated in order, the first match deciding (the provider's docs): its `allow`
 * lets the packet through and ends the evaluation, which in the `magic_transit` phase is a `skip` of the
 * current ruleset (the Magic Firewall docs allow a port "by using the skip action"), and `block` blocks.
 * @module
 */

/** The phase a legacy resource's rules are read in, and each of its actions as a ruleset rule's. */
export interface LegacyRulesetType {
  phase: string;
  actions: Readonly<Record<string, { action: string; action_parameters?: Record<string, unknown> }>>;
}

export const LEGACY_RULESET_TYPES: Readonly<Record<string, LegacyRulesetType>> = {
  cloudflare_magic_firewall_ruleset: {
    phase: 'magic_transit',
    actions: { allow: { action: 'skip', action_parameters: { ruleset: 'current' } }, block: { action: 'block' } },
  },
};
