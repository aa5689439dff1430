/// SoftwareSigner module.
