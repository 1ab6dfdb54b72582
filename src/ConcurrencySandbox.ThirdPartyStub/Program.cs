namespace ConcurrencySandbox.ThirdPartyStub;

// A named class rather than top-level statements, so test projects can reference both this app and the API.
internal static class Program
{
    private static Task Main(string[] args) => StubApp.Build(args).RunAsync();
}
