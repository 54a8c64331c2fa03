/**
 * What a governed query may contain, as allowlists that fail closed (study §5, §12.2). Built from
 * the 53-query corpus and reviewed; a construct missing here is reported, never passed through.
 */

/** AST node types accepted anywhere in a user query. */
export const ALLOWED_NODES: ReadonlySet<string> = new Set((
  'select union intersect except subquery from join joined_table where group_by having order_by ordered limit offset fetch with cte ' +
  'alias column identifier table star literal boolean null paren and or not eq neq lt lte gt gte like i_like in between is_null is_true is_false exists ' +
  'add sub mul div mod neg concat case cast try_cast coalesce null_if function aggregate_function window_function over window_spec ' +
  'count sum avg min max string_agg array_agg count_if stddev stddev_samp stddev_pop variance var_samp var_pop median mode first_value last_value lag lead row_number rank dense_rank n_tile percent_rank cume_dist ' +
  'extract date_trunc interval data_type array array_func subscript array_slice dot ' +
  'upper lower length trim substring replace position regexp_replace regexp_like left right abs round floor ceil power sqrt ln log exp sign greatest least ' +
  'grouping_sets cube rollup filter within_group lateral unnest tuple any all distinct_on values ' +
  'similar_to null_safe_eq null_safe_neq bitwise_not not_in strpos str_position date_part to_char annotated lpad rpad initcap md5 ' +
  'bool_and bool_or logical_and logical_or percentile_cont percentile_disc nth_value split_part concat_ws char_length ltrim rtrim'
).split(/\s+/));

/** Function names accepted in generic `function` / `aggregate_function` nodes. */
export const ALLOWED_FUNCTIONS: ReadonlySet<string> = new Set((
  'coalesce nullif greatest least abs round floor ceil ceiling power sqrt exp ln log mod sign trunc div ' +
  'lower upper length char_length character_length octet_length substr substring trim btrim ltrim rtrim replace regexp_replace strpos position concat concat_ws split_part left right lpad rpad initcap md5 reverse repeat ' +
  'date_trunc date_part extract to_char age make_date current_setting now current_timestamp current_date localtimestamp ' +
  'count sum avg min max string_agg array_agg bool_and bool_or every stddev stddev_samp stddev_pop variance var_samp var_pop percentile_cont percentile_disc mode ' +
  'row_number rank dense_rank ntile lag lead first_value last_value nth_value percent_rank cume_dist ' +
  'array array_length cardinality unnest generate_series grouping cube rollup'
).split(/\s+/).concat(['grouping sets']));

/** Literal kinds whose generation is known to be safe (hazard H1: E'', N'', $$ re-open as SQL). */
export const ALLOWED_LITERALS: ReadonlySet<string> = new Set(['string', 'number', 'date', 'timestamp', 'time']);

/** Node types that are never allowed, with the reason reported. Checked before the allowlist. */
export const FORBIDDEN_NODE =
  /^(insert|update|delete|merge|copy|create|drop|alter|truncate_table|grant|revoke|set|pragma|attach|detach|install|command|raw|transaction|commit|rollback|prepare|execute|call|load|use|show|describe|kill|into|returning|parameter|placeholder|session_parameter|read_)/;
