using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// The hot method of a CPU-bound break (issue 38 item 2): the application's methods by their inclusive share of the
/// sampler's CPU samples, the deepest one holding half of them named with what it costs per request, or the top five
/// when none does; samples of threads that wait count for nothing.
/// </summary>
public sealed class HotMethodsTests
{
    private static readonly string[] Request = ["dynamicClass.lambda_method3", "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", "System.Threading.ThreadPoolWorkQueue.Dispatch", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart"];

    private static ThreadStack Sample(int thread, params string[] leafFirst) => new(thread, [.. leafFirst, "Program+<>c.<<Main>$>b__0_0", .. Request]);

    private static readonly string[] Hashing = [BlockingSites.OnCpu, "System.Security.Cryptography.SHA256.HashData", "Shop.RiskModel.Score"];
    private static readonly string[] Sleeping = ["UNMANAGED_CODE_TIME", "System.Threading.Thread.SleepInternal", "System.Threading.Thread.Sleep", "Shop.Audit.Write"];

    [Fact]
    public void WhatTheCoresWouldCarryWithoutTheHotMethodIsBoundedByHowManySamplesSawIt()
    {
        // Every one of 19 samples in one method: its share may still be 83 %, so the CPU left is at most about 17 %
        // (about 6 x the requests/s), never the 1 % a bare share of 100 % would promise.
        var all = new HotMethod("RiskModel.Score", 1, 1, null, null, null, 0);
        var (now, without) = HotMethods.Buys(all, 19, 2, 2)!.Value;
        Assert.Equal(1000, now);
        Assert.InRange(without / now, 5, 7);
        var random = new Random(3804);
        for (var draw = 0; draw < 200; draw++)
        {
            var share = random.NextDouble();
            var samples = random.Next(1, 5000);
            var bound = HotMethods.RestUpperBound(share, samples);
            Assert.InRange(bound, 1 - share, 1);
            Assert.True(HotMethods.RestUpperBound(share, samples * 4) <= bound, $"more samples, a tighter bound ({share}, {samples})");
        }
        Assert.Null(HotMethods.Buys(all, 0, 2, 2));
    }

    /// <summary>
    /// A trace can pair a code address's module with a token of another module (CI 2026-11-29: a self-observed test
    /// process's hot methods threw BadImageFormatException "Read out of bounds"): such a frame is named from the trace
    /// alone, without a line, and the rest of the sample is still read.
    /// </summary>
    [Fact]
    public void AFrameWhoseTokenItsModuleDoesNotDefineIsNamedWithoutALine()
    {
        var module = typeof(HotMethodsTests).Assembly.Location;
        using var own = ModuleSource.Open(module)!;
        var defined = own.Methods().First();
        var rows = own.Methods().Max(t => t & 0x00FFFFFF);
        var random = new Random(3805);
        // Past the method table, row 0, another table's token (a type, a member reference), a valid row.
        int[] tokens = [0x06000000 | (rows + random.Next(1, 100_000)), 0x06000000, 0x02000001, 0x0A000001, defined];
        using var resolver = new CallSiteResolver();
        var samples = tokens.Select((token, i) => Sample(i, Hashing) with { Locations = [null, null, new FrameLocation(module, token, 0)] }).ToList();

        var hot = HotMethods.From([new SampleRound([], null, null, 0.3) { Samples = samples }], resolver)!;

        Assert.Equal(tokens.Length, hot.CpuSamples);
        Assert.Equal("RiskModel.Score", hot.Dominant?.Method);
        Assert.Equal([false, false, false, false, true], samples.Select(s => resolver.Place(s, 2) is not null));
        Assert.All(samples, s => resolver.Resolve(s, 2, [module]));
    }

    [Fact]
    public void TheDeepestMethodHoldingHalfTheCpuSamplesIsNamedWithItsCostPerRequestAndTheLoadWithoutIt()
    {
        // Seeded: 70-95 % of the running samples in RiskModel.Score (under the handler's lambda), the rest in Pricing.Quote;
        // sleeping threads' samples in between, which are no CPU.
        var random = new Random(3804);
        for (var draw = 0; draw < 50; draw++)
        {
            var hashing = random.Next(70, 96);
            var samples = Enumerable.Range(0, hashing).Select(i => Sample(i % 4, Hashing))
                .Concat(Enumerable.Range(0, 100 - hashing).Select(i => Sample(i % 4, BlockingSites.OnCpu, "Shop.Pricing.Quote")))
                .Concat(Enumerable.Range(0, random.Next(0, 200)).Select(i => Sample(5 + (i % 3), Sleeping)))
                .OrderBy(_ => random.Next())
                .ToList();
            using var resolver = new CallSiteResolver();

            var hot = HotMethods.From([new SampleRound([], null, null, 0.3) { Samples = samples }], resolver)!;

            Assert.Equal(100, hot.CpuSamples);
            Assert.Equal("RiskModel.Score", hot.Dominant?.Method);
            Assert.Equal(hashing / 100.0, hot.Dominant!.Share, precision: 9);
            // The handler holds every sample, but it is the caller: the one to change is the deepest.
            Assert.Equal(1.0, hot.Methods.Single(m => m.Method == "the lambda in Program (top-level statements)").Share, precision: 9);
            Assert.DoesNotContain(hot.Methods, m => m.Method == "Audit.Write");
        }
        var ninety = HotMethods.From([new SampleRound([], null, null, 0.3) { Samples = [.. Enumerable.Range(0, 90).Select(i => Sample(1, Hashing)), .. Enumerable.Range(0, 10).Select(i => Sample(2, BlockingSites.OnCpu, "Shop.Pricing.Quote"))] }], new CallSiteResolver())!;
        Assert.Equal("the hot method: RiskModel.Score, running in 90 % of the 100 CPU samples over 0.3 s of sampling: about 1.8 of the 2 CPU ms per request; without it the 2 cores would carry 5,735 requests/s or more instead of 1,000 (2 cores x 1000 / the CPU ms per request left, at most 17.4 % of it by the 100 samples' 95 % bound)",
            ninety.Describe(cpuMsPerRequest: 2, processorCount: 2));
        Assert.EndsWith("; its CPU per request is not known (no CPU figure over the load)", ninety.Describe(null, 2));
    }

    /// <summary>
    /// Issue 38, the cold service Vetting (a backtracking Regex per request): its pool's idle workers, spinning in
    /// LowLevelLifoSemaphore's wait for work, were sampled in managed code as often as the handler, so the Regex's method
    /// held 42 % of the CPU samples and the headline said no method dominates. Seeded: the handler's method in 55-90 % of
    /// the samples of work, and idle spins as many again or more: the method is named, over the samples of work alone.
    /// </summary>
    [Fact]
    public void APoolWorkerSpinningWhileItWaitsForWorkIsNoCpuSample()
    {
        string[][] spinning =
        [
            [BlockingSites.OnCpu, "System.Threading.LowLevelLifoSemaphore.Wait", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart", "System.Threading.Thread.StartCallback"],
            [BlockingSites.OnCpu, "System.Threading.LowLevelLifoSemaphore.WaitForSignal", "System.Threading.LowLevelLifoSemaphore.Wait", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart", "System.Threading.Thread.StartCallback"],
            [BlockingSites.OnCpu, "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart", "System.Threading.Thread.StartCallback"],
        ];
        string[] serving = [BlockingSites.OnCpu, "System.Net.Sockets.SocketAsyncEngine.EventLoop", "System.Threading.Thread.StartCallback"];
        var random = new Random(3806);
        for (var draw = 0; draw < 50; draw++)
        {
            var matching = random.Next(55, 91);
            var idle = random.Next(100, 200);
            var samples = Enumerable.Range(0, matching).Select(i => Sample(i % 2, BlockingSites.OnCpu, "System.Text.RegularExpressions.RegexInterpreter.Scan", "System.Text.RegularExpressions.Regex.IsMatch", "Vetting.CustomerNameRules.IsPlausible"))
                .Concat(Enumerable.Range(0, 100 - matching).Select(i => new ThreadStack(2, serving)))
                .Concat(Enumerable.Range(0, idle).Select(i => new ThreadStack(3 + (i % 4), spinning[i % spinning.Length])))
                .OrderBy(_ => random.Next())
                .ToList();

            var hot = HotMethods.From([new SampleRound([], null, null, 0.3) { Samples = samples }], new CallSiteResolver())!;

            Assert.Equal(100, hot.CpuSamples);
            Assert.Equal("CustomerNameRules.IsPlausible", hot.Dominant?.Method);
            Assert.Equal(matching / 100.0, hot.Dominant!.Share, precision: 9);
        }
        // A worker running a work item has the pool's loop below its work, not as its leaf managed frame: it ran.
        Assert.True(HotMethods.Ran(new ThreadStack(1, [BlockingSites.OnCpu, "System.Threading.ThreadPoolWorkQueue.Dispatch", "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart"])));
        Assert.All(spinning, leafFirst => Assert.False(HotMethods.Ran(new ThreadStack(1, leafFirst))));
    }

    [Fact]
    public void WithNoDominantMethodTheTopFiveAreListedWithTheirSharesAndSaidSo()
    {
        string[] methods = ["Shop.A.One", "Shop.B.Two", "Shop.C.Three", "Shop.D.Four", "Shop.E.Five", "Shop.F.Six"];
        var samples = methods.SelectMany((m, i) => Enumerable.Range(0, 30 - (3 * i)).Select(_ => Sample(i, BlockingSites.OnCpu, m))).ToList();

        var hot = HotMethods.From([new SampleRound([], null, null, 0.3) { Samples = samples }], new CallSiteResolver())!;
        var text = hot.Describe(2, 2);

        Assert.Null(hot.Dominant);
        Assert.StartsWith($"no method of the application holds 50 % of the {samples.Count} CPU samples over 0.3 s of sampling; the top 5 by inclusive share: the lambda in Program (top-level statements) 100 %, A.One 22 %, B.Two 20 %", text);
        // The handler holds all six callees' samples: it is listed, with the four largest of them.
        Assert.Contains("D.Four 16 %", text);
        Assert.DoesNotContain("E.Five", text);
    }

    // Framework frames whose native code below is a native library's or the runtime's copying (issue 38, the cold service
    // Spread's SHA256.HashData), and frames whose native code below is the allocator's.
    private static readonly string[] NativeLibraries =
    [
        "System.Security.Cryptography.SHA256.HashData", "Interop+Crypto.EvpDigestOneShot", "System.IO.Compression.Deflater.Deflate",
        "System.IO.Compression.ZLibNative+ZLibStreamHandle.Deflate", "System.Globalization.CompareInfo.IcuCompareString",
        "System.Text.RegularExpressions.RegexCaseEquivalences.TryFindCaseEquivalencesForCharWithIBehavior", "System.Buffer.MemmoveInternal",
    ];

    private static readonly string[] AllocationHelpers =
    [
        "System.String.Concat", "System.Collections.Generic.List`1[System.__Canon]..ctor", "System.GC.AllocateUninitializedArray",
        "System.Linq.Enumerable.ToList", "System.Text.StringBuilder.ExpandByABlock", "System.IO.MemoryStream.set_Capacity",
    ];

    /// <summary>
    /// The sampler sees managed frames only, and the allocator has none: a framework frame's native time is the allocator's
    /// by the bytes it allocated per ms of it (issue 38, the cold service Spread, named GC by a SHA256.HashData that
    /// allocates its 32-byte hash). Seeded: each service has SHA256.HashData and up to two other native libraries allocating 0.1-40 % of the floor per ms of
    /// their native time (a memcpy nothing) and allocation helpers allocating 3-15 x the floor, among managed work; only the
    /// helpers' native time is the allocator's, at its share of the CPU samples. The old rule (any frame the allocation
    /// samples caught allocating) took the libraries too.
    /// </summary>
    [Fact]
    public void NativeTimeIsTheAllocatorsOnlyBelowAFrameThatAllocatedAtTheAllocatorsRate()
    {
        var random = new Random(3838);
        for (var draw = 0; draw < 100; draw++)
        {
            var libraries = NativeLibraries.Skip(1).OrderBy(_ => random.Next()).Take(random.Next(0, 3)).Prepend(NativeLibraries[0]).ToList();
            var helpers = AllocationHelpers.OrderBy(_ => random.Next()).Take(random.Next(0, 3)).ToList();
            // Native samples under each frame (and its bytes per ms of them), then the managed work around them.
            var native = libraries.Select(f => (Frame: f, Samples: random.Next(20, 200), BytesPerMs: f.Contains("Memmove", StringComparison.Ordinal) ? 0 : HotMethods.AllocatorLeastBytesPerMs * random.Next(1, 400) / 1000.0))
                .Concat(helpers.Select(f => (Frame: f, Samples: random.Next(20, 200), BytesPerMs: HotMethods.AllocatorLeastBytesPerMs * random.Next(3, 16))))
                .ToList();
            var managed = random.Next(50, 400);
            var samples = native.SelectMany(n => Enumerable.Range(0, n.Samples).Select(i => Sample(i % 4, "UNMANAGED_CODE_TIME", n.Frame) with { CpuShare = 0.9 }))
                .Concat(Enumerable.Range(0, managed).Select(i => Sample(i % 4, BlockingSites.OnCpu, "Shop.Checks.Run")))
                .OrderBy(_ => random.Next())
                .ToList();
            using var resolver = new CallSiteResolver();
            var hot = HotMethods.From([new SampleRound([], null, null, 0.5) { Samples = samples }], resolver)!;
            // A sample is about a ms of a core: the bytes each frame allocated, and the application's own besides.
            var allocated = native.Where(n => n.BytesPerMs > 0).ToDictionary(n => n.Frame, n => n.BytesPerMs * n.Samples);
            allocated["Shop.Checks.Run"] = HotMethods.AllocatorLeastBytesPerMs * random.Next(0, 200);
            var bytes = allocated.Values.Sum();
            var allocations = new AllocationSamples(1000, (long)bytes, [new AllocationSite("System.Byte[]", 1)], []) { Allocators = allocated.ToDictionary(a => a.Key, a => a.Value / bytes) };

            var inAllocator = hot.AllocatorCalls(allocations, bytes / hot.CpuSamples);

            Assert.Equal(helpers.Order(), inAllocator.Keys.Order());
            Assert.All(helpers, h => Assert.Equal((double)native.Single(n => n.Frame == h).Samples / hot.CpuSamples, inAllocator[h], 9));
            // What the old rule went by: the hash's frame had native time below it and was caught allocating.
            Assert.True(allocations.Allocators.ContainsKey(NativeLibraries[0]) && hot.NativeCalls.ContainsKey(NativeLibraries[0]));
        }
    }
}
