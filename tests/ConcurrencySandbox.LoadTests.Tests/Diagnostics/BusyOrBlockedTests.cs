using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Running;
using ConcurrencySandbox.Testing;

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

    /// <summary>
    /// A synchronous read of a pipe to its end, leaf first, as dotnet-stack showed it in a minimal API written cold (issue
    /// 37's walk, 2026-11-30: <c>new StreamReader(pipe).ReadToEnd()</c>; on Unix the pipe is a socket). The runner's sample
    /// of the same process had the reader's ReadToEnd inlined and read 40 threads parked in it as "run (busy on a core)".
    /// </summary>
    private static readonly string[] PipeRead =
    [
        "UNMANAGED_CODE_TIME", "Interop+Sys.Read", "System.Net.Sockets.SocketPal.TryCompleteReceiveFrom", "System.Net.Sockets.SocketAsyncContext.ReceiveFrom",
        "System.Net.Sockets.Socket.Receive", "System.Net.Sockets.Socket.Receive", "System.IO.Pipes.PipeStream.ReadCore", "System.IO.StreamReader.ReadBuffer",
        "System.IO.StreamReader.ReadToEnd",
    ];

    [Fact]
    public void APipeReadWaitsWhicheverOfItsFramesTheJitInlined()
    {
        // Any frame but the leaf's native time and the one the read's syscall is made from may be inlined into its caller.
        var random = new Random(3707);
        var inlinable = Enumerable.Range(1, PipeRead.Length - 1).Where(i => PipeRead[i] != "System.Net.Sockets.SocketPal.TryCompleteReceiveFrom").ToList();
        for (var i = 0; i < 200; i++)
        {
            var inlined = inlinable.Where(_ => random.Next(2) == 0).ToHashSet();
            string[] below = [.. PipeRead.Where((_, index) => !inlined.Contains(index))];
            var stack = Thread(random, i, below) with { CpuShare = random.NextDouble() };

            Assert.False(BlockingSites.IsBusy(stack), string.Join(" <- ", stack.Frames));
            // As CallSites names it: the frames below the user's, and the call its statement's IL makes (SlowFeed.cs:12's ReadToEnd).
            var primitive = BlockingPrimitive.Classify([.. below.Reverse().Select(SourceNames.Describe)], ["StreamReader.ReadToEnd"]);
            Assert.Contains(primitive, new[] { BlockingPrimitive.StreamRead, BlockingPrimitive.PipeRead, BlockingPrimitive.SocketIo });
        }
    }

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
        // Caught in managed code, it ran, however little of its round it then spent on a core (it went idle after the
        // request: CpuHash's 3-users break at a load average of 82 read 1 such thread "no call" and not busy).
        for (var i = 0; i < 50; i++)
        {
            var share = random.NextDouble() * BlockingSites.BusyCpuShare;
            Assert.True(BlockingSites.IsBusy(Thread(random, i, [BlockingSites.OnCpu]) with { CpuShare = share }), $"share {share}");
            Assert.True(BlockingSites.IsBusy(Thread(random, i, [BlockingSites.OnCpu, "System.Linq.Enumerable.Sum"]) with { CpuShare = share }), $"share {share}");
        }
    }

    [Fact]
    public void AThreadCaughtHashingIsBusyByItsShareOfTheRoundsThatCaughtItNotOfTheWholeSample()
    {
        // CI's quiet machine (issue 38): 1 of 5 hashing threads read "blocks on native code", its CPU share taken over the
        // whole three-round sample, whose gaps and trace conversions it spent idle or off the pool's work. Seeded
        // timelines: each round a thread is caught hashing (the inlined hash's shape: user frame, then native code) and
        // runs part of that round, or caught idle and runs nothing; some threads start after the first round.
        var random = new Random(3803);
        for (var sample = 0; sample < 100; sample++)
        {
            var threads = random.Next(3, 9);
            var cpu = Enumerable.Range(0, threads).ToDictionary(id => id, _ => random.NextDouble() * 5);
            var rounds = new List<SampleRound>();
            for (var round = 0; round < 3; round++)
            {
                var seconds = 0.1 + (random.NextDouble() * 0.05);
                var present = cpu.Keys.Where(id => round > 0 || id % 3 != 2).ToList();
                var caught = present.ToDictionary(id => id, _ => random.Next(3) > 0);
                var before = present.ToDictionary(id => id, id => cpu[id]);
                foreach (var id in present.Where(id => caught[id]))
                {
                    cpu[id] += seconds * (BlockingSites.BusyCpuShare + (random.NextDouble() * 0.5));
                }
                var after = present.ToDictionary(id => id, id => cpu[id]);
                rounds.Add(new SampleRound([.. present.Select(id => caught[id] ? Thread(random, id, ["UNMANAGED_CODE_TIME"]) : Idle(id))], before, after, seconds));
                // Between rounds: the gap and the trace's conversion, up to a second on a busy machine, with little or no work.
                foreach (var id in cpu.Keys)
                {
                    cpu[id] += random.NextDouble() * 0.005;
                }
            }

            foreach (var stack in StackSampler.Combine(rounds).Where(s => BlockingSites.UserFrame(s) >= 0))
            {
                Assert.True(BlockingSites.IsBusy(stack), $"sample {sample}, thread {stack.ThreadId}: share {stack.CpuShare}");
            }
        }
    }

    [FactOnLinux]
    public void AThreadThatWantsACoreTheMachineDoesNotGiveItCountsAsRunningAndAParkedOneDoesNot()
    {
        // A busy machine (a load average of 40 on 2 cores) gives each of a CPU-bound service's threads a sliver of a core:
        // 10 of 12 hashing threads then used under 5 % each and read "blocks on native code". Here four times as many
        // spinning threads as cores, so none can be on a core more than a quarter of the time; and one parked thread.
        var spinners = 4 * Environment.ProcessorCount;
        using var stop = new ManualResetEventSlim();
        using var parked = new ManualResetEventSlim();
        var threads = Enumerable.Range(0, spinners).Select(i => new System.Threading.Thread(() => { while (!stop.IsSet) { } }) { Name = $"spin-{i}", IsBackground = true })
            .Append(new System.Threading.Thread(() => stop.WaitHandle.WaitOne()) { Name = "parked", IsBackground = true })
            .ToList();
        threads.ForEach(t => t.Start());
        try
        {
            System.Threading.Thread.Sleep(100);
            var names = Directory.EnumerateDirectories("/proc/self/task").ToDictionary(task => int.Parse(Path.GetFileName(task), System.Globalization.CultureInfo.InvariantCulture), task => File.ReadAllText(Path.Combine(task, "comm")).Trim());
            var before = ThreadCpu.Read(Environment.ProcessId)!;
            var started = System.Diagnostics.Stopwatch.GetTimestamp();
            System.Threading.Thread.Sleep(400);
            var shares = ThreadCpu.Shares(before, ThreadCpu.Read(Environment.ProcessId)!, System.Diagnostics.Stopwatch.GetElapsedTime(started).TotalSeconds);

            var spinning = names.Where(n => n.Value.StartsWith("spin-", StringComparison.Ordinal)).Select(n => shares[n.Key]).ToList();
            Assert.Equal(spinners, spinning.Count);
            // On a core, the spinners share the cores: a quarter of the time each at most on average. On or queued for one,
            // each is runnable all along but for the test process's own GC suspensions (other tests run beside it).
            Assert.True(spinning.Average() > 0.4, $"the spinning threads' shares: {string.Join(", ", spinning.Select(x => x.ToString("0.###", System.Globalization.CultureInfo.InvariantCulture)))}");
            var parkedShare = shares[names.Single(n => n.Value == "parked").Key];
            Assert.True(parkedShare < BlockingSites.BusyCpuShare, $"the parked thread's share {parkedShare:0.###}");
        }
        finally
        {
            stop.Set();
            threads.ForEach(t => t.Join());
        }
    }

    [Fact]
    public void AUserFrameInNativeCodeRunsWhenItsStatementsILMakesNoWaitAndWaitsWhenItDoes()
    {
        // An inlined hash and an inlined Thread.Sleep both show the user frame, then native code; the statement's IL
        // (read for the call site's line) tells them apart when the threads' time could not (a load average of 74).
        static BlockingSite Native(string primitive, SourceLine? line) =>
            new("the lambda in Program (top-level statements) -> native code", 2, InUserCode: true, InRequest: true,
                new BlockingCall("the lambda in Program (top-level statements)", primitive, line, "GET /risk/{id:int}", null, null, null));
        var line = new SourceLine("Program.cs", 8);

        Assert.True(BlockingSites.RunsNativeCode(Native(BlockingSites.NativeCode, line)));
        foreach (var wait in new[] { BlockingPrimitive.Sleep, BlockingPrimitive.Lock, BlockingPrimitive.Result })
        {
            Assert.False(BlockingSites.RunsNativeCode(Native(wait, line)), wait);
        }
        // No IL read (no PDB, no module on this machine): the stack's shape alone, which an inlined wait shares.
        Assert.False(BlockingSites.RunsNativeCode(Native(BlockingSites.NativeCode, null)));
        Assert.False(BlockingSites.RunsNativeCode(Native(BlockingSites.NativeCode, line) with { CallSite = "Reports.Renderer.Render -> Task.Wait" }));
    }

    [Fact]
    public void AThreadsShareIsTheMeanOfTheRoundsThatShowedTheStackItCountsWith()
    {
        var hashing = Thread(new Random(1), 7, ["UNMANAGED_CODE_TIME"]);
        IReadOnlyDictionary<int, double> At(double seconds) => new Dictionary<int, double> { [7] = seconds };
        var rounds = new[]
        {
            new SampleRound([hashing], At(1.0), At(1.02), 0.1),
            new SampleRound([Idle(7)], At(1.5), At(1.5), 0.1),
            new SampleRound([hashing], At(2.0), At(2.04), 0.1),
        };

        var stack = Assert.Single(StackSampler.Combine(rounds));

        Assert.Equal(hashing.Frames, stack.Frames);
        Assert.Equal(0.3, stack.CpuShare!.Value, precision: 9);
        // A round without readings leaves the thread to its stack alone.
        Assert.Null(Assert.Single(StackSampler.Combine([new SampleRound([hashing], null, null, 0.1)])).CpuShare);
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
        var finding = new CapacityFinding("users", new ServiceSlo(10, "SLO p99 10 ms"), 4, 5, "p99 30 ms", cause, null, null, broke.Result.Total);
        var headline = Headline.Of(finding, broke.Observed(diagnosis)).Text;
        var paragraph = headline + diagnosis.Describe();

        Assert.False(diagnosis.Starved, paragraph);
        Assert.StartsWith("CPU (the process used 98 % of its 2 cores; 3 of 4 pool threads run (busy on a core, not blocked) RiskModel.Score -> SHA256.HashData", cause);
        Assert.Null(sites.Top);
        Assert.DoesNotContain("Change `", headline, StringComparison.Ordinal);
        Assert.DoesNotContain("blocking call site", paragraph, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("async", paragraph.Replace("an async call would not help", "", StringComparison.Ordinal), StringComparison.Ordinal);
        Assert.DoesNotContain("minimum", paragraph, StringComparison.Ordinal);
        Assert.Contains("kept its pool threads busy, not blocked", paragraph);

        // The busy verdict is what decides: the same counters with the threads parked in .Result are starvation.
        var parked = new ThreadStack(1, [.. Waiting[0], "Shop.RiskModel.Score", "Program+<>c.<<Main>$>b__0_0", .. Bottoms[0]]);
        var blocking = broke with { Sites = BlockingSites.Group([parked, parked with { ThreadId = 2 }, parked with { ThreadId = 3 }, Idle(4)]) };
        var blocked = blocking.Observed(blocking.Diagnose());
        Assert.True(blocked.Diagnosis!.Starved);
        Assert.StartsWith("Change `RiskModel.Score`", Headline.Of(finding with { Cause = CapacityFinding.CauseOf(blocking.Result, blocked, 2.5, null) }, blocked).Text);
    }

    /// <summary>
    /// A service that awaits a dependency serving 6 requests at a time (written cold, 2026-11-29): at 32 users 2 of its 3
    /// pool threads were caught running continuations, none blocked, while the process used 7 % of its cores and its
    /// threads queued for a core 0.2 s of the 2.1 s the 32 requests were in flight. Running threads alone made it "CPU",
    /// ahead of the upstream whose calls made up most of each request. A measured wait for a core under a quarter of the
    /// requests' time says the requests waited elsewhere; unmeasured (or a quarter and more), the running threads still decide.
    /// </summary>
    [Theory]
    [InlineData(0.2, false)]
    [InlineData(null, true)]
    [InlineData(20.0, true)]
    public void RunningThreadsMakeTheCpuTheCauseOnlyWhenTheRequestsWereNotMeasuredWaitingElsewhere(double? waitedForCoreSeconds, bool cpu)
    {
        var running = new ThreadStack(1,
        [
            "UNMANAGED_CODE_TIME", "Interop+Crypto.EvpDigestOneShot", "System.Security.Cryptography.HashProviderDispenser+OneShotHashProvider.HashData",
            "System.Security.Cryptography.SHA256.HashData", "Shop.RiskModel.Score", "Program+<>c.<<Main>$>b__0_0", .. Bottoms[0],
        ]);
        var step = RecordedBreak.Of(
            users: 32, requests: 1170, fastestMs: 40, p99Ms: 824,
            samples: [(1.0, 3, 0), (2.0, 3, 1), (3.0, 3, 0)],
            intervals: [(1, 117, 250, 500), (2, 120, 260, 800), (3, 118, 255, 824)],
            adjustments: "0.5 H 4 3; 1.5 H 4 3",
            BlockingSites.Group([running, running with { ThreadId = 2 }, Idle(3)]));
        var broke = step with
        {
            Result = step.Result with
            {
                Telemetry = [.. step.Result.Telemetry.Select(t => t with { Snapshot = t.Snapshot with { Process = new ProcessTelemetry(0, 7, 0, 0), ProcessorCount = 2 } })],
            },
        };
        var diagnosis = broke.Diagnose();
        var observed = broke.Observed(diagnosis) with { Cores = new CoreUse(2.1, 2, 2, 1, 97, waitedForCoreSeconds) };

        var cause = CapacityFinding.CauseOf(broke.Result, observed, 230, null);

        Assert.False(diagnosis.Starved, cause);
        Assert.Equal(cpu, cause.StartsWith("CPU (", StringComparison.Ordinal));
    }

    [Fact]
    public void AQueueThatGrowsWithStarvationInjectionsIsNoStarvationUnlessSampledPoolThreadsBlockInAWait()
    {
        // Issue 38 item 1's worst error, the cause corpus's shape (async handlers that hash, then await an upstream, on a
        // busy machine): the queue grows, the pool adds threads by hill climbing and for Starvation, and Little's law's 8
        // threads read as a pool short of threads. Whatever the stacks show, that is the same evidence here.
        var step = RecordedBreak.Of(
            users: 8, requests: 400, fastestMs: 20, p99Ms: 200,
            samples: [(1.0, 2, 3), (2.0, 3, 5), (3.0, 4, 7), (4.0, 5, 9), (5.0, 6, 11)],
            intervals: [(1, 80, 90, 190), (2, 80, 95, 200), (3, 80, 95, 200), (4, 80, 90, 195), (5, 80, 95, 200)],
            adjustments: "0.5 H 3; 1.5 H 4; 3.2 H 5; 4.4 H 6",
            new BlockingSites(0, 0, []));
        var queued = step with { Marks = [.. step.Marks, new(2.5, 4, PoolSample.StarvationReason), new(3.6, 5, PoolSample.StarvationReason)] };
        var hashing = new BlockingCall("RiskModel.Score", "a call into SHA256.HashData", new SourceLine("RiskModel.cs", 12), "GET /risk/{id:int}", null, null, null);
        BlockingSites Sampled(params BlockingSite[] sites) => new(6, 14, sites);
        (StarvationDiagnosis Diagnosis, string Cause, string Text) Read(BlockingSites sites)
        {
            var broke = queued with { Sites = sites };
            var diagnosis = broke.Diagnose();
            var cause = CapacityFinding.CauseOf(broke.Result, broke.Observed(diagnosis), 40, null);
            var finding = new CapacityFinding("users", new ServiceSlo(80, "SLO p99 80 ms"), 7, 8, "p99 200 ms", cause, null, null, broke.Result.Total);
            return (diagnosis, cause, Headline.Of(finding, broke.Observed(diagnosis)).Text + diagnosis.Describe());
        }

        // No pool thread parked in a wait: in a call that is no wait (a hash the busy machine gave under 5 % of a core), or
        // none in user code at all (the work awaited), with the runtime's Starvation injections all the same.
        foreach (var sites in new[]
        {
            Sampled(new BlockingSite("RiskModel.Score -> SHA256.HashData", 4, InUserCode: true, InRequest: true, hashing), new BlockingSite(BlockingSites.NoUserCode, 2, InUserCode: false)),
            Sampled(new BlockingSite(BlockingSites.NoUserCode, 6, InUserCode: false)),
        })
        {
            var (diagnosis, cause, text) = Read(sites);

            Assert.Null(sites.Top);
            Assert.False(diagnosis.Starved, text);
            Assert.Equal(0, diagnosis.NeededThreads);
            Assert.DoesNotContain("pool starvation", cause, StringComparison.Ordinal);
            Assert.DoesNotContain("Change the blocking call", text, StringComparison.Ordinal);
            Assert.DoesNotContain("make it async", text, StringComparison.Ordinal);
            Assert.DoesNotContain("pool's minimum", text, StringComparison.Ordinal);
            Assert.Contains("the pool added threads (2 starvation injections), none sampled blocked", text, StringComparison.Ordinal);
        }

        // The same counters and injections with the pool's threads parked in .Result: starvation, and its fixes.
        var parked = new ThreadStack(1, [.. Waiting[0], "Shop.RiskModel.Score", "Program+<>c.<<Main>$>b__0_0", .. Bottoms[0]]);
        var blocked = Read(BlockingSites.Group([parked, parked with { ThreadId = 2 }, parked with { ThreadId = 3 }, parked with { ThreadId = 4 }, Idle(5)]));
        Assert.True(blocked.Diagnosis.Starved, blocked.Text);
        Assert.StartsWith("pool starvation", blocked.Cause, StringComparison.Ordinal);
        Assert.Contains("Change `RiskModel.Score`", blocked.Text, StringComparison.Ordinal);
        Assert.Contains("make it async", blocked.Text, StringComparison.Ordinal);
        Assert.Contains("set the pool's minimum to", blocked.Text, StringComparison.Ordinal);
    }
}
