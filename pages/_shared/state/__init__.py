"""Session state: the sidebar's `Settings` (a run `Trained` here or `Replayed` from a file),
its keys and `bind` (`settings`); every control a link or lesson file carries, declared
once (`controls`); the one reader and writer of the link (`link`); this session's bounded
stores (`stores`); state kept with one run (`per_run`); and whether the browser session is
still there (`sessions`). Imports only `render` and `bpe`."""
