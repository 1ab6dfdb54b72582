using System.Net;
using System.Net.Http.Json;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using ConcurrencySandbox.Api.Admin;
using ConcurrencySandbox.Api.Control;
using ConcurrencySandbox.Api.ThreadPools;
using ConcurrencySandbox.Contracts.Control;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.Control;

/// <summary>The control port against the API port: same actions, same answers, its own small HTTP/1.1 reader.</summary>
/// <remarks>Tests with the default settings share one server; the pool limits a test changes are put back after it.</remarks>
[Collection(ProcessWideCollection.Name)]
public sealed class ControlListenerTests(SandboxServerFixture shared) : RestoresThreadPoolLimits, IClassFixture<SandboxServerFixture>
{
    [Fact]
    public async Task TheControlPortAnswersTheSameStartUpLimitsAndProcessorCountAsTheApiPort()
    {
        using var control = new HttpClient { BaseAddress = shared.Server.ControlAddress };

        var viaControl = await control.GetOkAsync<ThreadPoolStateResponse>(ControlRoutes.ThreadPool);
        var viaApi = await shared.Client.GetOkAsync<ThreadPoolStateResponse>(ControlRoutes.ThreadPool);

        Assert.Equal(viaApi.Startup, viaControl.Startup);
        Assert.Equal(viaApi.ProcessorCount, viaControl.ProcessorCount);
        Assert.NotEqual(shared.Server.BaseAddress.Port, shared.Server.ControlAddress.Port);
    }

    [Fact]
    public async Task APutOnTheControlPortChangesThePoolAndABadOneIsRefusedAsOnTheApiPort()
    {
        using var control = new HttpClient { BaseAddress = shared.Server.ControlAddress };

        using var good = await control.PutAsJsonAsync(ControlRoutes.ThreadPool, new { minWorkerThreads = Original.MinWorkerThreads + 5 });
        using var bad = await control.PutAsync(ControlRoutes.ThreadPool, new StringContent("""{"minWorkerThreads":"400"}""", Encoding.UTF8, "application/json"));
        using var badOnApi = await shared.Client.PutAsync(ControlRoutes.ThreadPool, new StringContent("""{"minWorkerThreads":"400"}""", Encoding.UTF8, "application/json"));

        Assert.Equal(HttpStatusCode.OK, good.StatusCode);
        Assert.Equal(Original.MinWorkerThreads + 5, ThreadPoolLimits.Read().MinWorkerThreads);
        Assert.Equal(await ProblemAssert.IsBadRequestNamingAsync(badOnApi, "minWorkerThreads"), await ProblemAssert.IsBadRequestNamingAsync(bad, "minWorkerThreads"));
    }

    [Fact]
    public async Task TheControlPortChecksTheAdminKeyBeforeTheBody()
    {
        await using var server = await SandboxServer.StartAsync("Admin:Key=s3cret");
        using var control = new HttpClient { BaseAddress = server.ControlAddress };

        using var withoutKey = await control.PutAsync(ControlRoutes.ThreadPool, new StringContent("{oops", Encoding.UTF8, "application/json"));
        using var request = new HttpRequestMessage(HttpMethod.Post, ControlRoutes.ThreadPoolReset);
        request.Headers.Add(AdminKeyFilter.HeaderName, "s3cret");
        using var withKey = await control.SendAsync(request);

        Assert.Equal(HttpStatusCode.Unauthorized, withoutKey.StatusCode);
        Assert.Equal("application/problem+json", withoutKey.Content.Headers.ContentType?.MediaType);
        Assert.Equal(HttpStatusCode.OK, withKey.StatusCode);
    }

    [Theory]
    [InlineData("GET", "/api/fanout", HttpStatusCode.NotFound)]
    [InlineData("DELETE", ControlRoutes.ThreadPool, HttpStatusCode.MethodNotAllowed)]
    [InlineData("OPTIONS", ControlRoutes.ThreadPool, HttpStatusCode.NoContent)]
    [InlineData("GET", ControlRoutes.TelemetryHistory + "?since=abc", HttpStatusCode.BadRequest)]
    public async Task TheControlPortAnswersOtherRequestsWithTheRightStatusAndNoWildcardCorsHeader(string method, string path, HttpStatusCode expected)
    {
        using var control = new HttpClient { BaseAddress = shared.Server.ControlAddress };

        using var response = await control.SendAsync(new HttpRequestMessage(new HttpMethod(method), path));

        Assert.Equal(expected, response.StatusCode);
        Assert.False(response.Headers.Contains("Access-Control-Allow-Origin"), "no Origin sent, so no CORS header answered");
    }

    [Fact]
    public async Task AChunkedBodyIsReadAndAnOversizedOneRefused()
    {
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(shared.Server.ControlAddress.Host, shared.Server.ControlAddress.Port);

        await socket.SendAsync(Encoding.ASCII.GetBytes("PUT /api/threadpool HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n1;x=y\r\n}\r\n0\r\n\r\n"));
        var buffer = new byte[8192];
        var received = await socket.ReceiveAsync(buffer);
        using var control = new HttpClient { BaseAddress = shared.Server.ControlAddress };
        using var tooLarge = await control.PutAsync(ControlRoutes.ThreadPool, new ByteArrayContent(new byte[ThreadPoolActions.MaxBodyBytes + 1]));

        Assert.StartsWith("HTTP/1.1 200 ", Encoding.ASCII.GetString(buffer, 0, received), StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, tooLarge.StatusCode);
    }

    [Theory]
    [InlineData("Control:Port=70000", "Control__Port")]
    [InlineData("Control:HandlerThreads=0", "Control__HandlerThreads")]
    [InlineData("Control:MaxConnections=0", "Control__MaxConnections")]
    [InlineData("Control:RequestSeconds=0", "Control__RequestSeconds")]
    [InlineData("Control:ShutdownSeconds=600", "Control__ShutdownSeconds")]
    [InlineData("Control:Host=localhost", "Control__Host")]
    public async Task InvalidControlSettingsStopStartUpNamingThem(string setting, string environmentVariable)
    {
        var failure = await Assert.ThrowsAsync<Microsoft.Extensions.Options.OptionsValidationException>(() => SandboxServer.StartAsync(setting));

        Assert.Contains(environmentVariable, failure.Message, StringComparison.Ordinal);
    }

    [FactOnLinux]
    public async Task StoppingTheAppEndsTheListenersDedicatedThreads()
    {
        var server = await SandboxServer.StartAsync("Control:HandlerThreads=3");
        var port = server.ControlAddress.Port;
        var whileRunning = ListenerThreads(port);
        await server.DisposeAsync();

        Assert.Equal(3 + 1, whileRunning); // the handlers and the readiness loop
        await Eventually.TrueAsync(() => ListenerThreads(port) == 0, "the control listener's threads to end");
    }

    // Linux names threads in /proc (15 characters at most); elsewhere there is nothing to count.
    private static int ListenerThreads(int port) =>
        Directory.GetDirectories("/proc/self/task").Count(task => ReadName(task).StartsWith($"Control {port} ", StringComparison.Ordinal));

    private static string ReadName(string task)
    {
        try
        {
            return File.ReadAllText(Path.Combine(task, "comm"));
        }
        catch (IOException)
        {
            return string.Empty; // the thread ended while we looked
        }
    }

    [Fact]
    public async Task SwaggerListsTheControlPlaneAsAServer()
    {
        using var document = JsonDocument.Parse(await shared.Client.GetStringAsync("/swagger/v1/swagger.json"));

        var servers = document.RootElement.GetProperty("servers").EnumerateArray().Select(s => s.GetProperty("url").GetString()).ToList();

        Assert.Contains(shared.Server.ControlAddress.ToString().TrimEnd('/'), servers);
        Assert.Contains(shared.Server.BaseAddress.ToString().TrimEnd('/'), servers);
    }
}
