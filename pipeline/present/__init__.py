"""Presentation: what war shows a person. `output` writes a query's result (a table, CSV, JSON,
JSON Lines, Parquet); `report` runs the report's named queries, `charts` draws their rows, and
`report_page` makes the report's page and chart files; `replay_page` makes one game's page;
`serve` is the web app of `war serve`. Every page is rendered by `pages` from templates/ with
the one style sheet of static/ inlined; `numbers` says how pages write numbers.
"""
