"""Host-side tooling of webtorch (servers, site builders, CLI subcommands). Never imported by the runtime."""
