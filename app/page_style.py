"""How the page looks: Gradio's theme with a font that renders every letter, and the app's CSS.

`PAGE_STYLE` is passed where the app is mounted or launched (app/server.py, space_app.py).

Gradio's bundled Source Sans Pro SemiBold (weight 600, its headings' and bold text's) holds only a few
glyphs, among them an odd capital A: "FPKG-RAG" rendered as "FPKG-RᴀG" and "CHARGE" as "CHᴀRGE". The theme
loads the regular and the bold files only, so bold text is drawn with the whole bold font.

The CSS, by part of the page:
- header: the title and the sign-in line wrap under each other on a phone instead of squeezing the title;
- the evidence tables (Gradio's Dataframes) on a phone: the page's sans-serif at a compact size, so that
  their headers fit their columns;
- answer tables (the differential, Ask's tables, the notices): as wide as the answer, every cell wrapped
  between words (never cut, never broken mid-word unless a word is wider than its column), compact on a
  phone; the differential's rows open (<details>) to show all their evidence, and on a phone each row is a
  block of its own (rank and disease, score and its parts, evidence) rather than four narrow columns;
- the summary: the most likely disease large, the disclaimer beside it muted;
- the form's message (a request that failed as a whole) and the description's counter.
"""

from __future__ import annotations

import gradio as gr

FONT = [gr.themes.LocalFont("Source Sans Pro", weights=(400, 700)), "ui-sans-serif", "system-ui", "sans-serif"]
THEME = gr.themes.Default(font=FONT)

ANSWER_TABLES = "#diag-differential, #ask-answer, #diag-answer, #diag-summary"
DATAFRAMES = "#diag-triples, #ask-triples, #explore-table"
APP_CSS = f"""
#page-header {{ flex-wrap: wrap; gap: 0 16px; }}
#page-title {{ min-width: min(320px, 100%) !important; flex: 1 1 320px !important; }}
:is({ANSWER_TABLES}) table {{ width: 100%; display: table; table-layout: auto; border-collapse: collapse; }}
:is({ANSWER_TABLES}, #about-text) :is(th, td) {{ white-space: normal; word-break: normal; overflow-wrap: break-word;
  hyphens: auto; vertical-align: top; padding: 4px 8px; }}
#diag-differential td:first-child {{ white-space: nowrap; }}
#diag-differential details > summary {{ cursor: pointer; }}
#diag-differential details[open] > summary {{ margin-bottom: 4px; }}
#diag-differential .parts {{ color: var(--body-text-color-subdued); font-size: 0.85em; white-space: nowrap; }}
#diag-summary h3 {{ margin-top: 0; }}
#diag-disclaimer {{ color: var(--body-text-color-subdued); font-size: 0.9em; }}
.form-message {{ color: var(--error-text-color); }}
.char-count {{ color: var(--body-text-color-subdued); font-size: 0.85em; }}
.char-count.over {{ color: var(--error-text-color); font-weight: 700; }}
@media (max-width: 640px) {{
  :is({ANSWER_TABLES}, #about-text) :is(th, td) {{ padding: 3px 4px; font-size: 13px; }}
  #diag-differential thead {{ display: none; }}
  #diag-differential :is(table, tbody, tr, td) {{ display: block; width: auto; border: none; }}
  #diag-differential tr {{ border-top: 1px solid var(--border-color-primary); padding: 6px 0; }}
  #diag-differential td:first-child {{ float: left; margin-right: 6px; padding-left: 0; }}
  :is({DATAFRAMES}) :is(th, td, th *, td *) {{ font-family: var(--font) !important; font-size: 12px !important;
    word-break: normal !important; overflow-wrap: anywhere !important; }}
  :is({DATAFRAMES}) :is(th, td) {{ padding: 2px 4px !important; }}
}}
"""

PAGE_STYLE = {"theme": THEME, "css": APP_CSS}
