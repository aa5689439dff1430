import PackagePlugin
@main struct BenchmarkPlugin: CommandPlugin { func performCommand(context: PluginContext, arguments: [String]) async throws {} }
