/** The browser UI's stylesheet (`GET /ui/style.css`): served from our own route, no external font or CDN. */
export const UI_STYLE = `
:root{--bg:#fff;--fg:#1a1a1a;--muted:#666;--line:#ddd;--card:#fafafa;--accent:#0e7490;--bad:#b91c1c;--warn:#b45309;--ok:#15803d}
@media(prefers-color-scheme:dark){:root{--bg:#14161a;--fg:#d5d9de;--muted:#9aa3ad;--line:#2a2e36;--card:#1b1e24}}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,"Liberation Sans",sans-serif;margin:0;background:var(--bg);color:var(--fg)}
header{display:flex;gap:1rem;align-items:center;padding:.6rem 1.2rem;border-bottom:1px solid var(--line);flex-wrap:wrap}
header .brand{font-weight:700;font-size:1.1rem}
header nav a{margin-right:.8rem}
header .who{margin-left:auto;color:var(--muted)}
main{padding:1rem 1.2rem}
a{color:var(--accent)}
h1{font-size:1.3rem;margin:.2rem 0 .6rem}h2{font-size:1.1rem;margin:1.2rem 0 .5rem}h3{font-size:.95rem;margin:.2rem 0 .4rem}
small,.muted{color:var(--muted)}
form.inline{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap;margin:.4rem 0}
input,select,textarea,button{font:inherit;padding:.3rem .5rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
input[name=where]{min-width:28rem}
button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}
button.secondary{background:transparent;color:var(--accent)}
.error{color:#fff;background:var(--bad);padding:.4rem .7rem;border-radius:6px}
.notice{background:var(--card);border:1px solid var(--line);padding:.4rem .7rem;border-radius:6px}
.cols{display:flex;gap:.8rem;align-items:flex-start;overflow-x:auto;padding-bottom:.5rem}
.col{flex:1 0 12.5rem;max-width:22rem;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.5rem}
.col.empty{opacity:.55}
.card{border:1px solid var(--line);border-radius:8px;padding:.5rem .6rem;margin:.45rem 0;background:var(--bg)}
.card .title{font-weight:600;display:block;word-break:break-word}
.id{font-family:monospace;font-size:.8rem;color:var(--muted)}
.chip{display:inline-block;border-radius:99px;padding:0 .5rem;font-size:.78rem;margin:0 .25rem .2rem 0;color:#fff;background:var(--accent)}
.chip.conflict{background:var(--bad)}.chip.disputed{background:var(--warn)}.chip.settled{background:var(--ok)}
ul{margin:.2rem 0 .2rem 1.1rem;padding:0}li{margin:.1rem 0}
.miss{color:var(--bad)}
.blockers{font-size:.85rem}
table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid var(--line);vertical-align:top}
tr.conflicted td,tr.disputed td{background:rgba(185,28,28,.09)}
.log li{list-style:none;margin:.35rem 0;padding:.3rem .5rem;border-left:3px solid var(--line)}
.log li.transition{border-left-color:var(--accent)}
.log li.flag-conflict{border-left-color:var(--bad);background:rgba(185,28,28,.07)}.log li.flag-dispute{border-left-color:var(--warn);background:rgba(180,83,9,.07)}
.log .comment{white-space:pre-wrap;background:var(--card);border:1px solid var(--line);border-radius:6px;padding:.3rem .5rem;margin-top:.2rem}
.stage-gain{color:var(--ok);font-weight:600}.stage-loss{color:var(--bad);font-weight:600}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(22rem,1fr));gap:1rem}
.panel{border:1px solid var(--line);border-radius:8px;padding:.6rem .8rem}
.panel form{margin:.5rem 0}.panel form label{display:block;margin:.25rem 0}.panel textarea{width:100%}
svg.process{max-width:100%;height:auto;background:var(--card);border-radius:8px}
`;
