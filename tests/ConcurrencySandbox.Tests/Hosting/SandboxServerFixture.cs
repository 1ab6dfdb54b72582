namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>One API server with the default settings, shared by a test class whose tests only read from it.</summary>
public sealed class SandboxServerFixture : IAsyncLifetime
{
    private SandboxServer? _server;

    public SandboxServer Server => _server ?? throw new InvalidOperationException("The server has not started.");

    public HttpClient Client => Server.Client;

    public async Task InitializeAsync() => _server = await SandboxServer.StartAsync();

    public async Task DisposeAsync()
    {
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }
}
