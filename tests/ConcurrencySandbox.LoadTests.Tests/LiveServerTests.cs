using System.Net;
using System.Net.Sockets;
using System.Text.Json;
using ConcurrencySandbox.LoadTests.Progress;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>The live page's server on a loopback port in this process: the SSE feed's order, a browser that leaves, a port in use.</summary>
public sealed class LiveServerTests : IDisposable
{
    private readonly LiveFeed _feed = new();
    private readonly LiveServer _server;
    private readonly HttpClient _http = new() { Timeout = TimeSpan.FromSeconds(30) };

    public LiveServerTests()
    {
        _server = LiveServer.Start(0, _feed, "<!DOCTYPE html><title>live</title>");
    }

    [Fact]
    public async Task EventsArriveInOrderWithTheRunSoFarFirst()
    {
        _feed.On(new RunPlanned("sleep, smoke", [new("sleep/sync", 3, 3)]));
        _feed.On(new VariantStarted(0, 1, "sleep/sync", "/api/sleep/sync", "#8c564b"));
        using var events = await OpenEventsAsync();

        var publisher = Task.Run(() =>
        {
            for (var i = 0; i < 200; i++)
            {
                _feed.On(new PoolAdjusted("sleep/sync", i, i, "ClimbingMove"));
            }
            _feed.On(new RunEnded("finished", "done", null));
        });
        var received = await ReadUntilEndAsync(events);
        await publisher;

        Assert.Equal(Enumerable.Range(1, 203).Select(i => (long)i), received.Select(e => e.Id));
        Assert.Equal("plan", received[0].Type);
        Assert.Equal("variant", received[1].Type);
        Assert.Equal(Enumerable.Range(0, 200).Select(i => (double)i), received.Skip(2).SkipLast(1).Select(e => e.Json.GetProperty("elapsedSeconds").GetDouble()));
        Assert.Equal("end", received[^1].Type);
    }

    [Fact]
    public async Task ABrowserThatLeavesEndsOnlyItsOwnConnection()
    {
        _feed.On(new RunPlanned("sleep, smoke", []));
        var first = await OpenEventsAsync();
        await ReadEventAsync(first);
        await Eventually.TrueAsync(() => _feed.Readers == 1, "the first page to be connected");
        first.Dispose();

        // The run goes on publishing; the gone reader's writes fail on its own thread and it is dropped.
        for (var i = 0; i < 100; i++)
        {
            _feed.On(new PoolAdjusted("sleep/sync", i, i, "Warmup"));
        }
        await Eventually.TrueAsync(
            () =>
            {
                _feed.On(new PoolAdjusted("sleep/sync", 0, 0, "keep publishing until the write fails"));
                return _feed.Readers == 0;
            },
            "the page that left to be dropped");
        _feed.On(new RunEnded("finished", "done", null));

        using var second = await OpenEventsAsync();
        var replay = await ReadUntilEndAsync(second);
        Assert.Equal("plan", replay[0].Type);
        Assert.Equal("end", replay[^1].Type);
        Assert.Equal(Enumerable.Range(1, replay.Count).Select(i => (long)i), replay.Select(e => e.Id));
    }

    [Fact]
    public async Task AReconnectingPageResumesAfterTheLastEventItHad()
    {
        for (var i = 0; i < 5; i++)
        {
            _feed.On(new PoolAdjusted("sleep/sync", i, i, "Warmup"));
        }
        _feed.On(new RunEnded("finished", "done", null));
        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri(_server.Address, "/events"));
        request.Headers.Add("Last-Event-ID", "3");
        using var response = await _http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead);
        using var events = new EventReader(await response.Content.ReadAsStreamAsync());

        Assert.Equal([4L, 5, 6], (await ReadUntilEndAsync(events)).Select(e => e.Id));
    }

    [Fact]
    public void APortInUseMovesToTheNextFreePortAndSaysSo()
    {
        using var taken = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        taken.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        taken.Listen(1);
        var port = ((IPEndPoint)taken.LocalEndPoint!).Port;

        using var server = LiveServer.Start(port, new LiveFeed(), "page");

        Assert.True(server.Port > port && server.Port < port + LiveServer.PortsTried, $"asked {port}, got {server.Port}");
        Assert.Equal($"live: http://127.0.0.1:{server.Port}/ (port {port} is in use)", server.Announcement);
    }

    [Fact]
    public async Task ThePageTheReportItsSummaryAndNothingElseAreServedToLoopbackNamesOnly()
    {
        using var page = await _http.GetAsync(_server.Address);
        Assert.Equal(HttpStatusCode.OK, page.StatusCode);
        Assert.Equal("<!DOCTYPE html><title>live</title>", await page.Content.ReadAsStringAsync());
        Assert.Contains("default-src 'none'", page.Headers.GetValues("Content-Security-Policy").Single());

        Assert.Equal(HttpStatusCode.NotFound, (await _http.GetAsync(new Uri(_server.Address, "/report"))).StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await _http.GetAsync(new Uri(_server.Address, "/summary.json"))).StatusCode);
        var folder = Directory.CreateTempSubdirectory("live-report-");
        try
        {
            await File.WriteAllTextAsync(Path.Combine(folder.FullName, "report.html"), "<p class=\"verdict\">report</p>");
            _server.ReportWritten(Path.Combine(folder.FullName, "report.html"));
            Assert.Equal("<p class=\"verdict\">report</p>", await _http.GetStringAsync(new Uri(_server.Address, "/report")));
            Assert.True(_server.WaitForReportFetch(TimeSpan.Zero));
            // The summary beside the report, once there: the page's end reads its figures from it.
            Assert.Equal(HttpStatusCode.NotFound, (await _http.GetAsync(new Uri(_server.Address, "/summary.json"))).StatusCode);
            await File.WriteAllTextAsync(Path.Combine(folder.FullName, "summary.json"), "{\"version\":4}");
            using var summary = await _http.GetAsync(new Uri(_server.Address, "/summary.json"));
            Assert.Equal("application/json", summary.Content.Headers.ContentType?.MediaType);
            Assert.Equal("{\"version\":4}", await summary.Content.ReadAsStringAsync());
            // Its tiles only from a summary this runner reads: a foreign one is not found, and the server goes on.
            Assert.Equal(HttpStatusCode.NotFound, (await _http.GetAsync(new Uri(_server.Address, "/tiles.json"))).StatusCode);
            ReportWriter.Write(folder.FullName, SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 10, 5, (_, _) => 100).Analysed());
            var tiles = await _http.GetStringAsync(new Uri(_server.Address, "/tiles.json"));
            Assert.StartsWith("[{\"name\":\"threadpool\",\"color\":", tiles, StringComparison.Ordinal);
        }
        finally
        {
            folder.Delete(recursive: true);
        }

        Assert.Equal(HttpStatusCode.NotFound, (await _http.GetAsync(new Uri(_server.Address, "/elsewhere"))).StatusCode);
        using var rebound = new HttpRequestMessage(HttpMethod.Get, _server.Address);
        rebound.Headers.Host = "attacker.example";
        Assert.Equal(HttpStatusCode.Forbidden, (await _http.SendAsync(rebound)).StatusCode);
        using var post = await _http.PostAsync(_server.Address, new StringContent(""));
        Assert.Equal(HttpStatusCode.MethodNotAllowed, post.StatusCode);
    }

    private async Task<EventReader> OpenEventsAsync()
    {
        var response = await _http.GetAsync(new Uri(_server.Address, "/events"), HttpCompletionOption.ResponseHeadersRead);
        Assert.Equal("text/event-stream", response.Content.Headers.ContentType?.MediaType);
        return new EventReader(await response.Content.ReadAsStreamAsync());
    }

    private static async Task<List<Received>> ReadUntilEndAsync(EventReader events)
    {
        var received = new List<Received>();
        do
        {
            received.Add(await ReadEventAsync(events));
        }
        while (received[^1].Type != "end");
        return received;
    }

    private static async Task<Received> ReadEventAsync(EventReader events)
    {
        long id = 0;
        string? data = null;
        while (await events.ReadLineAsync() is { } line)
        {
            if (line.StartsWith("id: ", StringComparison.Ordinal))
            {
                id = long.Parse(line[4..], System.Globalization.CultureInfo.InvariantCulture);
            }
            else if (line.StartsWith("data: ", StringComparison.Ordinal))
            {
                data = line[6..];
            }
            else if (line.Length == 0 && data is not null)
            {
                var json = JsonDocument.Parse(data).RootElement.Clone();
                return new Received(id, json.GetProperty("type").GetString()!, json);
            }
        }
        throw new EndOfStreamException("the feed ended before the event did");
    }

    private sealed record Received(long Id, string Type, JsonElement Json);

    private sealed class EventReader(Stream stream) : IDisposable
    {
        private readonly StreamReader _reader = new(stream);

        public async Task<string?> ReadLineAsync()
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            return await _reader.ReadLineAsync(timeout.Token);
        }

        public void Dispose() => _reader.Dispose();
    }

    public void Dispose()
    {
        _server.Dispose();
        _http.Dispose();
    }
}
