"""Session state: the sidebar's `Settings` and `bind` (`settings`), the link's reader and
writer (`link`), state kept with one run (`per_run`), and whether the browser session is
still there (`sessions`). Imports only `render` and `bpe`."""
