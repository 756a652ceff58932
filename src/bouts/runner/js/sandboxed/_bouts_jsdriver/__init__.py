"""The trusted half of the JavaScript runner, run inside the sandbox (see docs/javascript.md)."""
