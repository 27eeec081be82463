/**
 * A Terraform file as one side of a Logpush filter diff: the `filter` of a `cloudflare_logpush_job`
 * resource (a JSON string, a heredoc or `jsonencode({ … })`, read as `rulekit lint` reads it) and its
 * `dataset`. A file with rulesets is a ruleset side unless `--resource` names one of its jobs; a file with
 * neither rulesets nor jobs is refused, never compared as empty.
 * @module
 */
import { SourceText } from '../diagnostics/index.js';
import { extractTerraform, parseHcl, terraformResources, type TextItem } from '../lint/index.js';
import { UsageError } from './io.js';

const JOB = 'cloudflare_logpush_job';

/** A filter side (./diff-logfilter.ts `FilterSide`): the filter's JSON text, the job's dataset, the filter's line. */
interface FilterSide {
  filter: string;
  dataset?: string;
  line: number;
}

/**
 * The filter side a `.tf` file holds: its one Logpush job, or the job `resource` names. Undefined when
 * the file is a ruleset side (it has `cloudflare_ruleset` resources and `resource` names no job). Throws
 * {@link UsageError} for a file with neither, several jobs and no `resource`, or a filter only Terraform knows.
 */
export function terraformFilterSide(text: string, shown: string, resource: string | undefined): FilterSide | undefined {
  const jobs = terraformResources(text, JOB);
  // cloudflare_ruleset, and the legacy resources read as rulesets (cloudflare_magic_firewall_ruleset).
  const rulesets = parseHcl(text).blocks.filter((b) => b.type === 'resource' && /^cloudflare_(\w+_)?ruleset$/.test(b.labels[0] ?? ''));
  if (resource !== undefined && !resource.startsWith(`${JOB}.`)) return undefined;
  if (resource === undefined && rulesets.length) return undefined;
  if (!jobs.length) {
    if (resource !== undefined) throw new UsageError(`${shown}: no ${resource} (the file has no ${JOB} resource)`);
    throw new UsageError(`${shown}: holds no ruleset resource (cloudflare_ruleset, cloudflare_magic_firewall_ruleset) and no ${JOB} resource: nothing to compare`);
  }
  let address: string;
  if (resource !== undefined) {
    if (!jobs.includes(resource)) throw new UsageError(`${shown}: no ${resource} (the file has ${jobs.join(', ')})`);
    address = resource;
  } else if (jobs.length > 1) {
    throw new UsageError(`${shown}: holds ${jobs.length} Logpush jobs (${jobs.join(', ')}): give --resource ${JOB}.NAME to compare one`);
  } else address = jobs[0]!;
  const extracted = extractTerraform(text);
  const label = `${address}.filter`;
  const notLiteral = extracted.diagnostics.find((d) => (d as { where?: string }).where === label);
  if (notLiteral) throw new UsageError(`${shown}: ${notLiteral.message.replace(/; it was not checked$/, '')}${lineOf(text, notLiteral.range?.start)}: only Terraform knows that filter`);
  const item = extracted.items.find((i): i is TextItem => i.kind === 'filter' && 'map' in i && i.label === label);
  const [type, name] = address.split('.');
  const block = parseHcl(text).blocks.find((b) => b.type === 'resource' && b.labels[0] === type && b.labels[1] === name)!;
  const datasetValue = block.body.attributes.filter((a) => a.key === 'dataset').at(-1)?.value;
  const side: FilterSide = { filter: '', line: new SourceText(text).position(block.range.start).line };
  // No filter (or an empty one): the job pushes every line; its dataset still names what it pushes.
  if (datasetValue?.type === 'string' && !datasetValue.interpolations.length) side.dataset = datasetValue.map.text;
  if (item) {
    if (item.holes.length) throw new UsageError(`${shown}: ${label} holds an interpolation (\${…})${lineOf(text, item.range.start)}: only Terraform knows that filter`);
    side.filter = item.map.text;
    side.line = new SourceText(text).position(item.range.start).line;
  }
  return side;
}

/** ` (line N)` for an offset, or nothing. */
function lineOf(text: string, at: number | undefined): string {
  return at === undefined ? '' : ` (line ${new SourceText(text).position(at).line})`;
}
