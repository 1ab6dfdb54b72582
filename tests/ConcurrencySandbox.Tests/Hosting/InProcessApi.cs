using ConcurrencySandbox.Api;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>
/// The real API with no sockets: an <see cref="IServer"/> in Kestrel's place hands each request straight to the
/// hosting pipeline (every middleware, routing, the endpoint, its answer written to <see cref="Stream.Null"/>), so a
/// test can count what the app itself does per request, apart from the network.
/// </summary>
public sealed class InProcessApi : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly PipelineServer _server;

    private InProcessApi(WebApplication app, PipelineServer server)
    {
        _app = app;
        _server = server;
    }

    public static async Task<InProcessApi> StartAsync()
    {
        var server = new PipelineServer();
        var app = SandboxApp.Build(["--Control:Port=0", "--Logging:LogLevel:Default=Warning"], services => services.AddSingleton<IServer>(server));
        await app.StartAsync();
        return new InProcessApi(app, server);
    }

    /// <summary>Runs one GET through the pipeline; returns its status code.</summary>
    public Task<int> GetAsync(string path, string queryString = "") => _server.SendAsync(path, queryString);

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }

    private sealed class PipelineServer : IServer
    {
        private Func<string, string, Task<int>>? _send;

        public IFeatureCollection Features { get; } = new FeatureCollection();

        public Task<int> SendAsync(string path, string queryString) =>
            (_send ?? throw new InvalidOperationException("The app has not started."))(path, queryString);

        public Task StartAsync<TContext>(IHttpApplication<TContext> application, CancellationToken cancellationToken)
            where TContext : notnull
        {
            Features.Set<IServerAddressesFeature>(new ServerAddressesFeature());
            _send = async (path, queryString) =>
            {
                var features = new FeatureCollection();
                var request = new HttpRequestFeature { Method = HttpMethods.Get, Path = path, QueryString = queryString, Protocol = "HTTP/1.1", Scheme = "http", RawTarget = path + queryString };
                request.Headers.Host = "127.0.0.1";
                var response = new HttpResponseFeature();
                features.Set<IHttpRequestFeature>(request);
                features.Set<IHttpResponseFeature>(response);
                features.Set<IHttpResponseBodyFeature>(new StreamResponseBodyFeature(Stream.Null));
                var context = application.CreateContext(features);
                await application.ProcessRequestAsync(context);
                application.DisposeContext(context, null);
                return response.StatusCode;
            };
            return Task.CompletedTask;
        }

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public void Dispose()
        {
        }
    }
}
