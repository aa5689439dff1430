/// SignerKitCommands module.
