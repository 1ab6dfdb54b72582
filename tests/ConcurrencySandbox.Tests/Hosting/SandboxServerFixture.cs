namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>One API server with the default settings, shared by a test class whose tests only read from it.</summary>
public class SandboxServerFixture : IAsyncLifetime
{
    private readonly string[] _settings;
    private SandboxServer? _server;

    public SandboxServerFixture()
        : this([])
    {
    }

    /// <summary>For a fixture whose server needs settings, as configuration keys such as "Admin:Key=s3cret".</summary>
    protected SandboxServerFixture(params string[] settings) => _settings = settings;

    public SandboxServer Server => _server ?? throw new InvalidOperationException("The server has not started.");

    public HttpClient Client => Server.Client;

    public async Task InitializeAsync() => _server = await SandboxServer.StartAsync(_settings);

    public async Task DisposeAsync()
    {
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }
}
