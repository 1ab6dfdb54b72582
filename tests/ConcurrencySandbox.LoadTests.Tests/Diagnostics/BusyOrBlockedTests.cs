using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Running is not blocking (issue 38): a pool thread sampled in user code or a callee that is no wait, on a core, is
/// busy; it is never a blocking call site, never starves the pool, and never gets an async or pool-minimum fix. The rule
/// is checked on stacks composed at random (a fixed seed) from several kinds of running code and several waits.
/// </summary>
public sealed class BusyOrBlockedTests
{
    private const string WorkerLoop = "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart";

    // What a pool thread shows root-ward of the user's frames: a request's pipeline, or a work item a request queued.
    private static readonly string[][] Bottoms =
    [
        ["dynamicClass.lambda_method12", "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__237`1[System.__Canon].MoveNext", "System.Threading.ThreadPoolWorkQueue.Dispatch", WorkerLoop],
        ["System.Threading.ExecutionContext.RunInternal", "System.Threading.ThreadPoolWorkQueue.Dispatch", WorkerLoop],
    ];

    private static readonly string[] UserMethods =
    [
        "Shop.RiskModel.Score", "Shop.Pricing+<>c.<Quote>b__3_0", "Billing.Invoices+<BuildAsync>d__5.MoveNext", "Reports.Renderer.Render", "Program+<>c.<<Main>$>b__0_1",
    ];

    /// <summary>Frames below the user's, leaf first, of code that runs on a core: its own loop, hashing (managed, or in the native crypto library), serializing, a regex, LINQ, a culture-aware compare.</summary>
    public static readonly string[][] Running =
    [
        [BlockingSites.OnCpu],
        [BlockingSites.OnCpu, "System.Security.Cryptography.SHA256.HashData"],
        ["UNMANAGED_CODE_TIME", "Interop+Crypto.EvpDigestOneShot", "System.Security.Cryptography.HashProviderDispenser+OneShotHashProvider.HashData", "System.Security.Cryptography.SHA256.HashData"],
        [BlockingSites.OnCpu, "System.Text.Json.Serialization.Converters.ObjectDefaultConverter`1[System.__Canon].OnTryWrite", "System.Text.Json.JsonSerializer.Serialize"],
        [BlockingSites.OnCpu, "System.Text.RegularExpressions.RegexInterpreter.Scan", "System.Text.RegularExpressions.Regex.IsMatch"],
        [BlockingSites.OnCpu, "System.Linq.Enumerable.Sum"],
        ["UNMANAGED_CODE_TIME", "Interop+Globalization.CompareString", "System.Globalization.CompareInfo.Compare"],
    ];

    /// <summary>Frames below the user's, leaf first, of a thread that waits: .Result, a spinning .Wait(), Thread.Sleep, a synchronous HttpClient.Send, a contended lock, SemaphoreSlim.Wait, a socket and a file read, a library's own wait.</summary>
    public static readonly string[][] Waiting =
    [
        ["UNMANAGED_CODE_TIME", "System.Threading.Monitor.Wait", "System.Threading.ManualResetEventSlim.Wait", "System.Threading.Tasks.Task.SpinThenBlockingWait", "System.Threading.Tasks.Task.InternalWaitCore", "System.Threading.Tasks.Task`1[System.__Canon].GetResultCore"],
        [BlockingSites.OnCpu, "System.Threading.SpinWait.SpinOnceCore", "System.Threading.Tasks.Task.SpinThenBlockingWait", "System.Threading.Tasks.Task.Wait"],
        ["UNMANAGED_CODE_TIME", "System.Threading.Thread.SleepInternal", "System.Threading.Thread.Sleep"],
        ["UNMANAGED_CODE_TIME", "System.Threading.Monitor.Wait", "System.Threading.ManualResetEventSlim.Wait", "System.Threading.Tasks.Task.SpinThenBlockingWait", "System.Net.Http.HttpClient.Send"],
        ["UNMANAGED_CODE_TIME", "System.Threading.Monitor.Enter_Slowpath"],
        ["UNMANAGED_CODE_TIME", "System.Threading.Monitor.Wait", "System.Threading.SemaphoreSlim.WaitUntilCountOrTimeout", "System.Threading.SemaphoreSlim.Wait"],
        ["UNMANAGED_CODE_TIME", "Interop+Sys.Receive", "System.Net.Sockets.SocketPal.Receive", "System.Net.Sockets.Socket.Receive"],
        ["UNMANAGED_CODE_TIME", "Interop+Sys.PRead", "System.IO.RandomAccess.ReadAtOffset", "System.IO.File.ReadAllBytes"],
        ["UNMANAGED_CODE_TIME", "System.Threading.Monitor.Wait", "System.Collections.Concurrent.BlockingCollection`1[System.__Canon].TryTakeWithNoTimeValidation", "System.Collections.Concurrent.BlockingCollection`1[System.__Canon].Take"],
    ];

    /// <summary>A pool thread: <paramref name="below"/> (leaf first), a user method (and sometimes its caller), then a request's or a work item's bottom.</summary>
    private static ThreadStack Thread(Random random, int id, string[] below) => new(id,
    [
        .. below,
        UserMethods[random.Next(UserMethods.Length)],
        .. random.Next(2) == 0 ? [] : new[] { "Shop.Handlers.Handle" },
        .. Bottoms[random.Next(Bottoms.Length)],
    ]);

    private static ThreadStack Idle(int id) => new(id, ["UNMANAGED_CODE_TIME", "System.Threading.LowLevelLifoSemaphore.WaitForSignal", WorkerLoop]);

    [Fact]
    public void EveryThreadIsBusyWhenItRunsAndBlockedWhenAWaitIsBelowItsUserFrame()
    {
        var random = new Random(38);
        for (var i = 0; i < 400; i++)
        {
            var running = random.Next(2) == 0;
            var below = running ? Running[random.Next(Running.Length)] : Waiting[random.Next(Waiting.Length)];
            var stack = Thread(random, i, below);

            Assert.True(running == BlockingSites.IsBusy(stack), $"{(running ? "running" : "waiting")}: {string.Join(" <- ", stack.Frames)}");
        }
    }

    [Fact]
    public void ThreadCpuTimeDecidesAUserFrameThatCalledStraightIntoNativeCodeAndNeverOverridesAWait()
    {
        // An inlined hash and an inlined Thread.Sleep look the same on the stack: the user frame, then native code.
        var random = new Random(37);
        for (var i = 0; i < 200; i++)
        {
            var share = random.NextDouble();
            var native = Thread(random, i, ["UNMANAGED_CODE_TIME"]) with { CpuShare = share };
            var waiting = Thread(random, i, Waiting[random.Next(Waiting.Length)]) with { CpuShare = share };
            var running = Thread(random, i, Running[random.Next(Running.Length)]) with { CpuShare = BlockingSites.BusyCpuShare + (share * (1 - BlockingSites.BusyCpuShare)) };

            Assert.Equal(share >= BlockingSites.BusyCpuShare, BlockingSites.IsBusy(native));
            Assert.False(BlockingSites.IsBusy(waiting), string.Join(" <- ", waiting.Frames));
            Assert.True(BlockingSites.IsBusy(running), string.Join(" <- ", running.Frames));
        }
        // Without CPU figures, the stack alone: native code straight below the user's frame is an inlined wait's shape.
        Assert.False(BlockingSites.IsBusy(Thread(random, 0, ["UNMANAGED_CODE_TIME"])));
    }

    [Fact]
    public void APoolWhoseThreadsRunInUserCodeHasNoBlockingCallSiteAndIsNotBlocked()
    {
        var random = new Random(3800);
        for (var round = 0; round < 50; round++)
        {
            var busy = random.Next(1, 9);
            var blocked = random.Next(0, 3);
            var stacks = Enumerable.Range(0, busy).Select(i => Thread(random, i, Running[random.Next(Running.Length)]))
                .Concat(Enumerable.Range(busy, blocked).Select(i => Thread(random, i, Waiting[random.Next(Waiting.Length)])))
                .Append(Idle(100))
                .ToList();

            var sites = BlockingSites.Group(stacks);

            // Only the blocked threads make a call site, a blocked pool or a blocking method; the running ones never.
            Assert.Equal(busy + blocked, sites.Sites.Where(s => s.InUserCode).Sum(s => s.Threads));
            Assert.Equal(blocked == 0, sites.Top is null);
            Assert.Equal(blocked == 0, sites.MethodToChange is null);
            // Unresolved sites have no primitive, so a lock's waiters count as blocked here too: every blocked thread, no running one.
            Assert.Equal(blocked, sites.BlockedOffLock);
            Assert.Equal(blocked > 0 && blocked >= BlockingSites.NearlyAllShare * sites.PoolThreads, sites.PoolBlocked);
        }
    }

    [Fact]
    public void ACpuBoundBreakIsNamedCpuWithNoBlockingCallSiteAsyncFixOrPoolMinimum()
    {
        // The shape of issue 38's report: 5 users on 2 cores, about 1.8 ms of SHA-256 per request; hill climbing moved
        // the pool between 2 and 4 threads (20 times) while requests queued for the cores, which Little's law's 5 threads
        // read as a pool short of threads. The stacks: the pool's threads in RiskModel.Score, hashing.
        var hashing = new ThreadStack(1,
        [
            "UNMANAGED_CODE_TIME", "Interop+Crypto.EvpDigestOneShot", "System.Security.Cryptography.HashProviderDispenser+OneShotHashProvider.HashData",
            "System.Security.Cryptography.SHA256.HashData", "Shop.RiskModel.Score", "Program+<>c.<<Main>$>b__0_0", .. Bottoms[0],
        ]);
        var sites = BlockingSites.Group([hashing, hashing with { ThreadId = 2 }, hashing with { ThreadId = 3 }, Idle(4)]);
        var step = RecordedBreak.Of(
            users: 5, requests: 2400, fastestMs: 1.9, p99Ms: 30,
            samples: [(1.0, 2, 3), (2.0, 4, 1), (3.0, 3, 2), (4.0, 4, 1), (5.0, 2, 3)],
            intervals: [(1, 480, 10, 28), (2, 490, 10, 30), (3, 470, 10.5, 31), (4, 480, 10, 29), (5, 480, 10, 30)],
            adjustments: "0.2 H 3 4; 0.6 H 2 3 4; 1.3 H 3 2 3 4; 2.2 H 3 4 3; 2.9 H 2 3 4; 3.8 H 3 2; 4.5 H 3 4 3 2",
            sites);
        var broke = step with
        {
            Result = step.Result with
            {
                Telemetry = [.. step.Result.Telemetry.Select(t => t with { Snapshot = t.Snapshot with { Process = new ProcessTelemetry(0, 98, 0, 0), ProcessorCount = 2 } })],
            },
        };

        var diagnosis = broke.Diagnose();
        var cause = CapacityFinding.CauseOf(broke.Result, broke.Observed(diagnosis), 2.5, null);
        var paragraph = diagnosis.Change + diagnosis.Describe();

        Assert.False(diagnosis.Starved, paragraph);
        Assert.StartsWith("CPU (the process used 98 % of its 2 cores; 3 of 4 pool threads run (busy on a core, not blocked) RiskModel.Score -> SHA256.HashData", cause);
        Assert.Null(sites.Top);
        Assert.Equal("", diagnosis.Change);
        Assert.DoesNotContain("blocking call site", paragraph, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("async", paragraph.Replace("an async call would not help", "", StringComparison.Ordinal), StringComparison.Ordinal);
        Assert.DoesNotContain("minimum", paragraph, StringComparison.Ordinal);
        Assert.Contains("kept its pool threads busy, not blocked", paragraph);

        // The busy verdict is what decides: the same counters with the threads parked in .Result are starvation.
        var parked = new ThreadStack(1, [.. Waiting[0], "Shop.RiskModel.Score", "Program+<>c.<<Main>$>b__0_0", .. Bottoms[0]]);
        var blocking = broke with { Sites = BlockingSites.Group([parked, parked with { ThreadId = 2 }, parked with { ThreadId = 3 }, Idle(4)]) };
        Assert.True(blocking.Diagnose().Starved);
        Assert.StartsWith("Change `RiskModel.Score`", blocking.Diagnose().Change);
    }
}
