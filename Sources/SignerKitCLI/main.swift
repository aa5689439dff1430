import SignerKitCommands

SignerKitCommandLine.main()
