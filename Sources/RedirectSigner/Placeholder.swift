/// RedirectSigner module.
