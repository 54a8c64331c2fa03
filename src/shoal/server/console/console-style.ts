/** The console's stylesheet (served as /console/style.css: the CSP allows no inline style). */
export const CONSOLE_CSS = `
:root { --fg: #1d2330; --muted: #667085; --line: #d8dde6; --accent: #1f6feb; --bad: #b42318; --bg: #f6f8fb; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, "Liberation Sans", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #0f1b2d; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0 1rem 0 0; letter-spacing: .05em; }
header .muted { color: #b8c2d3; }
header select { margin-left: .3rem; }
header button { margin-left: auto; }
section#sign-in { max-width: 26rem; margin: 3rem auto; background: #fff; padding: 1.5rem; border: 1px solid var(--line); border-radius: 6px; }
fieldset { border: 1px solid var(--line); margin: 0 0 1rem; display: flex; flex-direction: column; gap: .4rem; }
input[type=text], input[type=password] { padding: .35rem; border: 1px solid var(--line); border-radius: 4px; }
button { padding: .3rem .8rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; }
button:disabled { opacity: .5; cursor: default; }
#run { background: var(--accent); color: #fff; border-color: var(--accent); }
nav { display: flex; gap: .2rem; padding: .5rem 1rem 0; }
nav .tab[aria-selected=true] { border-bottom: 2px solid var(--accent); font-weight: 600; }
.panel { padding: .5rem 1rem 1rem; }
#tab-query { display: grid; grid-template-columns: 16rem 1fr; gap: 1rem; }
#tab-query[hidden] { display: none; }
aside#catalog { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .5rem; overflow: auto; max-height: 80vh; }
aside h2 { font-size: 1rem; margin: 0 0 .3rem; }
aside details summary { cursor: pointer; font-family: ui-monospace, "Liberation Mono", monospace; }
aside ul { margin: .2rem 0 .4rem; padding-left: 1.2rem; font-size: 12px; }
.masked { color: var(--bad); font-size: 11px; margin-left: .3rem; }
#work { min-width: 0; }
textarea#sql { width: 100%; min-height: 8rem; font: 13px/1.4 ui-monospace, "Liberation Mono", monospace; padding: .5rem; border: 1px solid var(--line); border-radius: 6px; }
.bar { display: flex; gap: .5rem; align-items: center; margin: .4rem 0; }
.muted { color: var(--muted); }
.error { color: var(--bad); }
div.error { background: #fef3f2; border: 1px solid #fecdca; border-radius: 6px; padding: .5rem; margin: .4rem 0; }
.hint { color: var(--fg); margin-top: .2rem; }
#grid { overflow: auto; max-height: 60vh; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: .25rem .5rem; text-align: left; white-space: pre; font-family: ui-monospace, "Liberation Mono", monospace; font-size: 12px; }
th { position: sticky; top: 0; background: #eef2f7; }
td.null { color: var(--muted); font-style: italic; }
#tab-mv table, #tab-cache table { background: #fff; border: 1px solid var(--line); margin: .5rem 0; }
tr.selected td { background: #eaf2ff; }
`;
