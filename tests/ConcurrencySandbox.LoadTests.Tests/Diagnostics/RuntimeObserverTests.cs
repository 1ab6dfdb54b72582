using System.Diagnostics;
using System.Diagnostics.Tracing;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing.Parsers;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>The observer against a real child (the sample service) starved by blocking calls: mechanisms only, no timings.</summary>
[Trait("Category", "Slow")]
public sealed class RuntimeObserverTests
{
    // Far more blocked requests than the pool starts with (one thread per core), each as long as the sample service allows.
    private const int BlockedRequests = 120;
    private const int DelayMs = 10_000;

    [Fact]
    public async Task CountersKeepArrivingWhileThePoolStarvesAndStarvationInjectionsAreSeen()
    {
        // A sleeping thread is not a blocking wait the runtime recognises: only its starvation detection adds threads.
        await WhileBlockedAsync("reports/1", async (_, observer) =>
        {
            // The sample service runs on .NET 10: the session without stacks and with only the adjustment event of the
            // Threading keyword, which must still bring the starvation injections below.
            Assert.True(observer.LightSession, "the runtime took the light session");
            await WaitAsync(observer, () => observer.Samples.Count(s => s[RuntimeObserver.QueueLength] > 0) >= 3, "three samples with work queued in a starving pool");
            await WaitAsync(observer, () => observer.Adjustments.Any(a => a.Reason == "Starvation"), "a thread-pool adjustment with reason Starvation");

            var starving = observer.Samples.Where(s => s[RuntimeObserver.QueueLength] > 0).ToList();
            Assert.All(starving, s => Assert.True(s[RuntimeObserver.ThreadCount] < BlockedRequests, "the pool had fewer threads than blocked requests"));
            Assert.All(RuntimeObserver.Counters, c => Assert.NotNull(starving[^1][c]));
            // ASP.NET Core's counters come with the hosting provider enabled at Critical (no per-request events).
            Assert.NotNull(starving[^1][RuntimeObserver.CurrentRequests]);
            Assert.True(starving[^1][RuntimeObserver.TotalRequests] >= starving[^1][RuntimeObserver.CurrentRequests], "requests since the start include those in flight");
            Assert.Null(observer.LostReason);
        });
    }

    [Fact]
    public async Task StacksNameTheBlockingMethodOfTheSampleService()
    {
        await WhileBlockedAsync("orders/1", async (service, observer) =>
        {
            await WaitAsync(observer, () => observer.Samples.Any(s => s[RuntimeObserver.QueueLength] > 0), "work queued in the pool");

            var sites = BlockingSites.Group(await StackSampler.SampleAsync(DiagnosticsChannel.OfProcess(service.ProcessId).Client, rounds: 2, CancellationToken.None));

            Assert.Equal("Orders.Get -> Task.get_Result", sites.Top?.CallSite);
            Assert.True(sites.Top!.Threads * 2 > sites.PoolThreads, $"most pool threads are parked in Orders.Get: {string.Join("; ", sites.Sites.Select(sites.Describe))}");
        });
    }

    /// <summary>
    /// Issue 37 item 1: ASP.NET Core's own request-duration metric, read over a window of its own session, names the route
    /// routing matched; issue 42: the window ends at its first publication (one a second) that counted a route, not at its
    /// length (60 s here), so the service records its requests into the histogram for a second or two, not the window.
    /// </summary>
    [Fact]
    public async Task AspNetCoresOwnMetricsGiveTheRouteTheRequestsWereServedBy()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        await using var observer = await RuntimeObserver.AttachAsync(DiagnosticsChannel.OfProcess(service.ProcessId), CancellationToken.None);

        var length = TimeSpan.FromSeconds(60);
        var started = Stopwatch.GetTimestamp();
        var window = observer.RoutesOverAsync(length, CancellationToken.None);
        while (!window.IsCompleted)
        {
            await service.LoadAsync("orders/1", 4, 1, CancellationToken.None);
        }
        var routes = await window;

        Assert.True(Stopwatch.GetElapsedTime(started) < length, "the window ended at its first publication that counted a route, before its length");
        Assert.True(routes.GetValueOrDefault("GET /orders/{id:int}") >= 1, $"requests counted on GET /orders/{{id:int}}: {string.Join(", ", routes.Select(r => $"{r.Key} {r.Value}"))}");
        Assert.DoesNotContain(routes.Keys, r => r.Contains("reports", StringComparison.Ordinal));
    }

    /// <summary>
    /// The always-on session asks for nothing the service writes per request: not ASP.NET Core's request-duration metric
    /// (while a listener holds it, every request records into it; the route window reads it), nor the hosting provider's
    /// request events, whichever session the runtime takes.
    /// </summary>
    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void TheAlwaysOnSessionHoldsNoPerRequestInstrument(bool light)
    {
        var session = RuntimeObserver.Session(light ? new EventPipeProviderEventFilter(true, [55]) : null, requestStackwalk: !light);

        Assert.DoesNotContain(session.Providers, p => p.Name == "System.Diagnostics.Metrics");
        Assert.All(session.Providers.Where(p => p.Name == "Microsoft.AspNetCore.Hosting"), p => Assert.Equal(EventLevel.Critical, p.EventLevel));
    }

    /// <summary>
    /// The stack sample asks the runtime for its modules and the methods it compiles only: not the GC's suspension events
    /// (one set per suspension the sampler makes), the GC's or the pool's, each written with its stack, nor the Binder
    /// keyword, whose assembly-load activities turn the service's activity tracking on for good.
    /// </summary>
    [Fact]
    public void TheStackSampleAsksTheRuntimeForNoEventItDoesNotRead()
    {
        const ClrTraceEventParser.Keywords unread = ClrTraceEventParser.Keywords.GC | ClrTraceEventParser.Keywords.Binder
            | ClrTraceEventParser.Keywords.Threading | ClrTraceEventParser.Keywords.Contention | ClrTraceEventParser.Keywords.Exception;

        Assert.Equal(0, StackSampler.RuntimeKeywords & (long)unread);
        Assert.NotEqual(0, StackSampler.RuntimeKeywords & (long)ClrTraceEventParser.Keywords.Jit);
    }

    /// <summary>
    /// Issue 42 item 3: each once-a-run part ends its session in the service before it returns, the always-on session
    /// held throughout: the runtime's EventPipe threads (a session's streaming thread, the sampler's) are as many after
    /// the route window, the stack sample, the allocation trace and the calls' trace as before them, so no part leaves
    /// the service writing or sampling for the rest of the run. That the count sees a session is checked first.
    /// </summary>
    [Fact]
    public async Task EachOnceARunPartEndsItsSessionInTheService()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        var channel = DiagnosticsChannel.OfProcess(service.ProcessId);
        await using var observer = await RuntimeObserver.AttachAsync(channel, CancellationToken.None);
        var before = EventPipeThreads(service.ProcessId);
        async Task BackToBeforeAsync(string part) =>
            await Eventually.TrueAsync(() => EventPipeThreads(service.ProcessId) == before, $"the service's EventPipe threads back to {before} after {part} (now {EventPipeThreads(service.ProcessId)})");

        using (var session = channel.Client.StartEventPipeSession(
            new EventPipeProvider("System.Runtime", EventLevel.Informational, 0, new Dictionary<string, string> { ["EventCounterIntervalSec"] = "1" }), requestRundown: false))
        {
            var drained = Task.Run(() => session.EventStream.CopyTo(Stream.Null));
            await Eventually.TrueAsync(() => EventPipeThreads(service.ProcessId) > before, "a thread more in the service while a session of its own is open");
            session.Stop();
            await drained;
        }
        await BackToBeforeAsync("that session");

        await observer.RoutesOverAsync(TimeSpan.FromSeconds(1), CancellationToken.None);
        await BackToBeforeAsync("the route window");
        using (await StackSampler.RecordRoundsAsync(channel.Client, 1, CancellationToken.None))
        {
            await BackToBeforeAsync("the stack sample");
        }
        using (CauseTrace.Record(channel.Client, observer.LightSession))
        {
            await BackToBeforeAsync("the allocation trace");
        }
        using (await CauseTrace.RecordCallsAsync(channel.Client, TimeSpan.FromSeconds(1), () => true, CancellationToken.None))
        {
            await BackToBeforeAsync("the calls' trace");
        }
    }

    /// <summary>The threads of <paramref name="processId"/> the runtime names ".NET EventPipe" (Linux's /proc).</summary>
    private static int EventPipeThreads(int processId) =>
        Directory.EnumerateDirectories($"/proc/{processId}/task").Count(task =>
        {
            try
            {
                return File.ReadAllText(Path.Combine(task, "comm")).Trim() == ".NET EventPipe";
            }
            catch (IOException)
            {
                // The thread ended between the listing and the read.
                return false;
            }
        });

    [Theory]
    [InlineData("http.request.method=GET,http.response.status_code=200,http.route=/orders/{id:int},network.protocol.version=1.1,url.scheme=http", "GET /orders/{id:int}")]
    [InlineData("http.request.method=GET,http.route={controller=Home}/{action=Index}/{id?},url.scheme=http", "GET {controller=Home}/{action=Index}/{id?}")]
    [InlineData("http.request.method=GET,http.route=/slots/{n:range(1,10)},url.scheme=http", "GET /slots/{n:range(1,10)}")]
    [InlineData("http.request.method=GET,http.response.status_code=404,url.scheme=http", null)]
    public void TheRouteIsReadFromTheHistogramsTags(string tags, string? route) => Assert.Equal(route, RuntimeObserver.RouteOf(tags));

    /// <summary>Runs <paramref name="check"/> on a fresh sample service, observed, while <see cref="BlockedRequests"/> requests to <paramref name="path"/> block its pool.</summary>
    private static async Task WhileBlockedAsync(string path, Func<SampleServiceProcess, RuntimeObserver, Task> check)
    {
        await using var service = await SampleServiceProcess.StartAsync();
        await using var observer = await RuntimeObserver.AttachAsync(DiagnosticsChannel.OfProcess(service.ProcessId), CancellationToken.None);
        using var stop = new CancellationTokenSource();
        var load = service.LoadAsync(path, BlockedRequests, DelayMs, stop.Token);
        try
        {
            await check(service, observer);
        }
        finally
        {
            await stop.CancelAsync();
            await load;
        }
    }

    /// <summary><see cref="Eventually"/>, with what the observer had seen in the failure message.</summary>
    private static async Task WaitAsync(RuntimeObserver observer, Func<bool> condition, string what)
    {
        try
        {
            await Eventually.TrueAsync(condition, what);
        }
        catch (Xunit.Sdk.XunitException e)
        {
            throw new Xunit.Sdk.XunitException($"{e.Message}; {State(observer)}");
        }
    }

    private static string State(RuntimeObserver observer) =>
        $"lost={observer.LostReason}; samples: {string.Join(" | ", observer.Samples.Select(s => $"threads {s[RuntimeObserver.ThreadCount]} queue {s[RuntimeObserver.QueueLength]} requests {s[RuntimeObserver.CurrentRequests]}"))}";

    /// <summary>
    /// What the CPU rows are built on (<see cref="ObservedTelemetry"/>): each cpu-usage reading carries the interval the
    /// runtime measured it over, and with no payload lost those intervals add up to the time between the samples on the
    /// runtime's own clock, whenever the runner read them.
    /// </summary>
    [Fact]
    public async Task EachCpuReadingCarriesItsIntervalAndTheIntervalsCoverTheRuntimesClock()
    {
        await using var service = await SampleServiceProcess.StartAsync();
        await using var observer = await RuntimeObserver.AttachAsync(DiagnosticsChannel.OfProcess(service.ProcessId), CancellationToken.None);
        await Eventually.TrueAsync(() => observer.Samples.Count >= 5, "five samples");

        var samples = observer.Samples;
        Assert.Equal(0, observer.EventsLost);
        // Not "about a second each": the runtime's counter loop keeps its cadence, so a poll that came late is followed by a
        // shorter interval (0.74 s seen at load average 39); what holds is that each reading has one and that they add up.
        Assert.All(samples, s => Assert.True(s.CpuIntervalSeconds > 0, $"an interval the runtime measured, got {s.CpuIntervalSeconds}"));
        Assert.All(samples.Zip(samples.Skip(1)), pair => Assert.True(pair.Second.WrittenSeconds > pair.First.WrittenSeconds, "the runtime's clock advances"));
        var covered = samples.Skip(1).Sum(s => s.CpuIntervalSeconds!.Value);
        Assert.InRange(covered - (samples[^1].WrittenSeconds - samples[0].WrittenSeconds), -VariantResult.CpuCoverageToleranceSeconds, VariantResult.CpuCoverageToleranceSeconds);
    }

    [Fact]
    public async Task AnObserverThatLosesTheProcessEndsItsSeriesAndSaysSo()
    {
        var service = await SampleServiceProcess.StartAsync();
        await using var observer = await RuntimeObserver.AttachAsync(DiagnosticsChannel.OfProcess(service.ProcessId), CancellationToken.None);
        await Eventually.TrueAsync(() => observer.Samples.Count >= 1, "a first sample");

        service.Kill();
        await service.DisposeAsync();

        await Eventually.TrueAsync(() => observer.LostReason is not null, "the observer to notice the process is gone");
        Assert.Contains("exited", observer.LostReason);
        var count = observer.Samples.Count;
        await Task.Delay(1500);
        Assert.Equal(count, observer.Samples.Count);
    }
}
