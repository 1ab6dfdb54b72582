using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Reports;
using Microsoft.Diagnostics.NETCore.Client;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>Issue 38 item 4: the service's outgoing calls per step, over the step from its peak to the load's end, not a second of it, and in summary.json.</summary>
public sealed class UpstreamPerStepTests
{
    /// <summary>
    /// The calls' trace of this very process, held until the "load" ends within its window: every call made while it ran
    /// is in it, over more than the second the allocation trace lasts (the calls used to come with it, a second at the peak).
    /// </summary>
    [Fact]
    public async Task TheCallsTraceHoldsEveryOutgoingCallUntilTheLoadEnds()
    {
        using var server = new OkServer();
        using var http = new HttpClient { BaseAddress = server.BaseAddress };
        var calls = 0;
        using var trace = await TraceCallsAsync(async () =>
        {
            var watch = System.Diagnostics.Stopwatch.StartNew();
            while (calls < 12 || watch.Elapsed < 2 * CauseTrace.Length)
            {
                await http.GetStringAsync(new Uri($"quotes/{++calls}?currency=EUR", UriKind.Relative));
                await Task.Delay(100);
            }
        });

        using var resolver = new CallSiteResolver("/quotes/1");
        var read = CauseTrace.Read(trace, resolver);

        var quotes = Assert.Single(read.Calls, c => c.Call == $"127.0.0.1:{server.BaseAddress.Port}/quotes/{{id}}");
        Assert.Equal(calls, quotes.Requests);
        Assert.Equal(new Dictionary<int, int> { [200] = calls }, quotes.Statuses);
        Assert.True(read.Seconds > CauseTrace.Length.TotalSeconds, $"the trace ran {read.Seconds:0.##} s");
        Assert.Null(read.Allocations);
    }

    /// <summary>
    /// Issue 38, a retrying DelegatingHandler (the cold service Shipping's): HttpClient.SendAsync's RequestStart and
    /// RequestStop wrap all of its attempts, so each call is counted once; the exchanges on the wire under each call's
    /// activity count the attempts, and their statuses show the 503s the handler hid behind its 200s. Seeded: which
    /// requests the server answers busy, about one in four; the handler's own count is what the trace must read.
    /// </summary>
    [Fact]
    public async Task ARetryingHandlersAttemptsAreCountedOnTheWireUnderTheirCall()
    {
        var random = new Random(3840);
        using var server = new OkServer(() => random.Next(4) == 0);
        var retrying = new RetryOnBusy { InnerHandler = new SocketsHttpHandler() };
        using var http = new HttpClient(retrying) { BaseAddress = server.BaseAddress };
        var calls = 0;
        using var trace = await TraceCallsAsync(async () =>
        {
            while (calls < 40 || retrying.Busy == 0)
            {
                using var response = await http.GetAsync(new Uri($"quotes/{++calls}", UriKind.Relative));
            }
        });

        using var resolver = new CallSiteResolver("/quotes/1");
        var quotes = Assert.Single(CauseTrace.Read(trace, resolver).Calls, c => c.Call == $"127.0.0.1:{server.BaseAddress.Port}/quotes/{{id}}");

        Assert.Equal(calls, quotes.Requests);
        Assert.Equal(retrying.Attempts, quotes.Attempts);
        Assert.Equal(retrying.Busy, quotes.AttemptStatuses.GetValueOrDefault(503));
        Assert.Equal(retrying.Attempts - retrying.Busy, quotes.AttemptStatuses.GetValueOrDefault(200));
        Assert.StartsWith($"{quotes.Call}: {calls} calls, {retrying.Attempts} attempts on the wire (", quotes.Describe());
    }

    /// <summary>The calls' trace of this very process while <paramref name="load"/> runs, held until it ends.</summary>
    private static async Task<RecordedTrace> TraceCallsAsync(Func<Task> load)
    {
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var loadEnded = false;
        var recording = CauseTrace.RecordCallsAsync(new DiagnosticsClient(Environment.ProcessId), TimeSpan.FromMinutes(1), () =>
        {
            // Asked first once the session runs.
            started.TrySetResult();
            return !Volatile.Read(ref loadEnded);
        }, CancellationToken.None);
        await started.Task.WaitAsync(TimeSpan.FromSeconds(60));
        await load();
        Volatile.Write(ref loadEnded, true);
        return await recording.WaitAsync(TimeSpan.FromSeconds(60));
    }

    /// <summary>Retries a 503 up to three times, counting its attempts and the 503s they met.</summary>
    private sealed class RetryOnBusy : DelegatingHandler
    {
        private int _attempts;
        private int _busy;

        public int Attempts => Volatile.Read(ref _attempts);

        public int Busy => Volatile.Read(ref _busy);

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            for (var attempt = 1; ; attempt++)
            {
                Interlocked.Increment(ref _attempts);
                var response = await base.SendAsync(request, cancellationToken);
                if (response.StatusCode != HttpStatusCode.ServiceUnavailable)
                {
                    return response;
                }
                Interlocked.Increment(ref _busy);
                if (attempt == 4)
                {
                    return response;
                }
                response.Dispose();
            }
        }
    }

    /// <summary>The calls' trace ends after its window though the load runs on: its cost is bounded per step.</summary>
    [Fact]
    public async Task TheCallsTraceEndsAfterItsWindowWhileTheLoadRunsOn()
    {
        var window = TimeSpan.FromSeconds(1.5);
        var watch = System.Diagnostics.Stopwatch.StartNew();

        using var trace = await CauseTrace.RecordCallsAsync(new DiagnosticsClient(Environment.ProcessId), window, () => true, CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(60));

        using var resolver = new CallSiteResolver("/quotes/1");
        var seconds = CauseTrace.Read(trace, resolver).Seconds;
        Assert.InRange(seconds, window.TotalSeconds, 10 * window.TotalSeconds);
        Assert.True(watch.Elapsed >= window);
    }

    /// <summary>
    /// A service making calls as fast as it can: the calls' trace ends once it holds enough of them, long before its
    /// window, so what it costs a step is bounded by calls rather than by seconds; the calls in it are still read whole.
    /// </summary>
    [Fact]
    public async Task TheCallsTraceEndsOnceItHoldsEnoughCallsLongBeforeItsWindow()
    {
        using var server = new OkServer();
        using var http = new HttpClient { BaseAddress = server.BaseAddress };
        // A window no busy machine's call rate comes near: the trace must end by its bytes, whatever the load on the cores.
        var window = TimeSpan.FromMinutes(5);
        using var stop = new CancellationTokenSource();
        var callers = Enumerable.Range(0, 4).Select(c => Task.Run(async () =>
        {
            for (var i = 0; !stop.IsCancellationRequested; i++)
            {
                await http.GetStringAsync(new Uri($"quotes/{c}{i}", UriKind.Relative));
            }
        })).ToArray();

        RecordedTrace trace;
        try
        {
            trace = await CauseTrace.RecordCallsAsync(new DiagnosticsClient(Environment.ProcessId), window, () => true, CancellationToken.None).WaitAsync(window + TimeSpan.FromMinutes(1));
        }
        finally
        {
            await stop.CancelAsync();
            await Task.WhenAll(callers);
        }

        using (trace)
        {
            using var resolver = new CallSiteResolver("/quotes/1");
            var read = CauseTrace.Read(trace, resolver);
            Assert.True(new FileInfo(trace.Path).Length >= CauseTrace.CallsEnoughBytes, $"{new FileInfo(trace.Path).Length} bytes");
            Assert.InRange(read.Seconds, CauseTrace.CallsShortest.TotalSeconds, window.TotalSeconds / 2);
            var quotes = Assert.Single(read.Calls, c => c.Call == $"127.0.0.1:{server.BaseAddress.Port}/quotes/{{id}}");
            Assert.True(quotes.Requests >= 1_000, $"{quotes.Requests} calls in {read.Seconds:0.##} s");
            Assert.Equal(new Dictionary<int, int> { [200] = quotes.Requests }, quotes.Statuses);
        }
    }

    [Fact]
    public void EachCapacityStepCarriesItsCallsInTheSummaryOrWhyNone()
    {
        var run = SyntheticReports.LoadRun("url", ["1-users", "8-users", "16-users"], 5, 5, (_, _) => 100);
        var quotes = new UpstreamCall("pricing:5001/quotes/{id}", 40, 300, 250, 1840, 10, 120, new Dictionary<int, int> { [200] = 40 });
        VariantObservation Observed(CauseTrace? causes, string? note = null) => new("pid 1", 5, 1, [], null, null, null, null) { Causes = causes, CauseTraceNote = note };
        var report = run with
        {
            Capacity = new SummaryCapacity("users", 500, "p99 <= 500 ms (given)", 8, 16, null, null, null, null),
            StepJudgements = BrokeAt(run, "16-users"),
            Observations = new Dictionary<string, VariantObservation>
            {
                ["1-users"] = Observed(new CauseTrace(1, null, [quotes with { P99Ms = 250 }]) { CallsSeconds = 4.5 }),
                ["8-users"] = Observed(null, "the runtime refused the HTTP client's trace (ServerErrorException: no), so GC and the upstream are named from the counters only"),
                ["16-users"] = Observed(new CauseTrace(1, null, [quotes]) { CallsSeconds = 4 }),
            },
        };

        var summary = RunSummary.Parse(report.Analysed().ToJson());

        var steps = summary.Capacity!.Steps!;
        Assert.Equal(new SummaryUpstreamCall("pricing:5001/quotes/{id}", 40, 300, 250, 250, quotes.QueueShare), Assert.Single(steps[0].Upstream!.Calls));
        Assert.Equal(4.5, steps[0].Upstream!.Seconds);
        Assert.Null(steps[0].Upstream!.NotReadBecause);
        Assert.Empty(steps[1].Upstream!.Calls);
        Assert.StartsWith("the runtime refused the HTTP client's trace", steps[1].Upstream!.NotReadBecause);
        Assert.Equal(1840, Assert.Single(steps[2].Upstream!.Calls).P99Ms);
    }

    /// <summary>
    /// Issue 38: a retrying handler's attempts on the wire reach the step's record in summary.json, not only the page's
    /// sentence: the calls, the attempts and how many each status answered, as the trace read them. Seeded calls with and
    /// without retries, and some whose attempts were not read (a runtime before the events): those carry neither member.
    /// </summary>
    [Fact]
    public void EachCallsAttemptsOnTheWireAndTheirStatusesAreInItsStepsRecord()
    {
        var random = new Random(3851);
        var run = SyntheticReports.LoadRun("url", ["1-users", "2-users", "4-users", "8-users", "16-users", "32-users"], 5, 5, (_, _) => 100);
        var traced = run.Variants.ToDictionary(v => v.Key.Label, _ => Enumerable.Range(0, random.Next(1, 4)).Select(i => RandomCall(random, $"pricing:5001/r{i}/{{id}}")).ToList());
        var report = run with
        {
            Capacity = new SummaryCapacity("users", 500, "p99 <= 500 ms (given)", 16, 32, null, null, null, null),
            StepJudgements = BrokeAt(run, "32-users"),
            Observations = traced.ToDictionary(t => t.Key, t => new VariantObservation("pid 1", 5, 1, [], null, null, null, null) { Causes = new CauseTrace(1, null, t.Value) { CallsSeconds = 2 } }),
        };

        var json = report.Analysed().ToJson();

        using var document = System.Text.Json.JsonDocument.Parse(json);
        var steps = document.RootElement.GetProperty("capacity").GetProperty("steps").EnumerateArray().ToList();
        var calls = traced.Values.SelectMany(c => c).ToList();
        Assert.Contains(calls, c => c.Attempts > c.Requests);
        Assert.Contains(calls, c => c.Attempts is null);
        Assert.All(steps, step => Assert.All(traced[step.GetProperty("variant").GetString()!].Zip(step.GetProperty("upstream").GetProperty("calls").EnumerateArray()), pair =>
        {
            var (call, written) = pair;
            Assert.Equal(call.Call, written.GetProperty("call").GetString());
            Assert.Equal(call.Requests, written.GetProperty("requests").GetInt32());
            if (call.Attempts is { } attempts)
            {
                Assert.Equal(attempts, written.GetProperty("attempts").GetInt32());
                var statuses = written.GetProperty("attemptStatuses").EnumerateObject().Select(s => (Status: int.Parse(s.Name, CultureInfo.InvariantCulture), Count: s.Value.GetInt32())).ToList();
                Assert.Equal(call.AttemptStatuses.OrderBy(s => s.Key).Select(s => (s.Key, s.Value)), statuses);
                Assert.Equal(attempts, statuses.Sum(s => s.Count));
            }
            else
            {
                Assert.False(written.TryGetProperty("attempts", out _), written.ToString());
                Assert.False(written.TryGetProperty("attemptStatuses", out _), written.ToString());
            }
        }));
        var read = RunSummary.Parse(json).Capacity!.Steps!.SelectMany(s => s.Upstream!.Calls).ToList();
        Assert.Equal(calls.Select(c => c.Attempts), read.Select(c => c.Attempts));
        Assert.Equal(calls.Select(c => c.AttemptStatuses.Sum(s => s.Value)), read.Select(c => c.AttemptStatuses?.Sum(s => s.Value) ?? 0));
    }

    /// <summary>A summary.json written before the attempts were in it reads, and writes back the same text: its calls carry no attempts.</summary>
    [Fact]
    public void ASummaryWrittenBeforeTheAttemptsReadsAndWritesBackTheSame()
    {
        var run = SyntheticReports.LoadRun("url", ["1-users", "2-users"], 5, 5, (_, _) => 100);
        var report = run with
        {
            Capacity = new SummaryCapacity("users", 500, "p99 <= 500 ms (given)", 1, 2, null, null, null, null),
            StepJudgements = BrokeAt(run, "2-users"),
            Observations = run.Variants.ToDictionary(v => v.Key.Label, _ => new VariantObservation("pid 1", 5, 1, [], null, null, null, null)
            {
                Causes = new CauseTrace(1, null, [RandomCall(new Random(38), "pricing:5001/quotes/{id}") with { Attempts = 9 }]) { CallsSeconds = 2 },
            }),
        };
        var json = report.Analysed().ToJson();
        // The members as an earlier runner wrote the call: up to its queue share.
        var earlier = System.Text.RegularExpressions.Regex.Replace(json, @"(""queueShare"": [^,\r\n]+),\s*""attempts"": \d+,\s*""attemptStatuses"": \{[^}]*\}", "$1");
        Assert.NotEqual(json, earlier);

        var read = RunSummary.Parse(earlier);

        Assert.All(read.Capacity!.Steps!.SelectMany(s => s.Upstream!.Calls), c => Assert.Null(c.Attempts));
        Assert.Equal(earlier, read.ToJson());
    }

    /// <summary>A traced call with seeded figures; one in three has no attempts read, the others retried 0-3 times over some of their calls.</summary>
    private static UpstreamCall RandomCall(Random random, string name)
    {
        var requests = random.Next(1, 300);
        var busy = random.Next(3) == 0 ? 0 : random.Next(0, 2 * requests);
        var read = random.Next(3) != 0;
        return new UpstreamCall(name, requests, 20 + (200 * random.NextDouble()), 15, 250, 0, 0, new Dictionary<int, int> { [200] = requests })
        {
            Attempts = read ? requests + busy : null,
            AttemptStatuses = read ? new Dictionary<int, int> { [503] = busy, [200] = requests }.Where(s => s.Value > 0).ToDictionary() : new Dictionary<int, int>(),
        };
    }

    /// <summary>The search's verdicts on <paramref name="run"/>'s steps: <paramref name="broke"/> broke the SLO, the others held.</summary>
    private static Dictionary<string, StepJudgement> BrokeAt(ExperimentReport run, string broke) =>
        run.Variants.ToDictionary(v => v.Key.Label, v => v.Key.Label == broke ? new StepJudgement(StepJudgement.Broke, "p99 over the SLO") : new StepJudgement(StepJudgement.Held, null));

    /// <summary>A server that answers every GET 200, or 503 when <paramref name="busy"/> says so for that request.</summary>
    private sealed class OkServer : IDisposable
    {
        private static readonly byte[] Ok = Encoding.ASCII.GetBytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        private static readonly byte[] Busy = Encoding.ASCII.GetBytes("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n");
        private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
        private readonly Lock _busyLock = new();
        private readonly Func<bool>? _busy;

        public OkServer(Func<bool>? busy = null)
        {
            _busy = busy;
            _listener.Start();
            BaseAddress = new Uri($"http://127.0.0.1:{((IPEndPoint)_listener.LocalEndpoint).Port}/");
            _ = AcceptAsync();
        }

        public Uri BaseAddress { get; }

        private async Task AcceptAsync()
        {
            try
            {
                while (true)
                {
                    _ = AnswerAsync(await _listener.AcceptTcpClientAsync());
                }
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                // Stopped.
            }
        }

        private async Task AnswerAsync(TcpClient connection)
        {
            using (connection)
            {
                var stream = connection.GetStream();
                var buffer = new byte[4096];
                var head = new StringBuilder();
                try
                {
                    for (int read; (read = await stream.ReadAsync(buffer)) > 0;)
                    {
                        head.Append(Encoding.ASCII.GetString(buffer, 0, read));
                        // A GET has no body: each blank line ends a request.
                        for (var end = head.ToString().IndexOf("\r\n\r\n", StringComparison.Ordinal); end >= 0; end = head.ToString().IndexOf("\r\n\r\n", StringComparison.Ordinal))
                        {
                            head.Remove(0, end + 4);
                            bool busy;
                            lock (_busyLock)
                            {
                                busy = _busy?.Invoke() == true;
                            }
                            await stream.WriteAsync(busy ? Busy : Ok);
                        }
                    }
                }
                catch (IOException)
                {
                    // The client hung up.
                }
            }
        }

        public void Dispose() => _listener.Stop();
    }
}
