using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

public sealed class BlockingSitesTests
{
    private const string WorkerLoop = "System.Threading.PortableThreadPool+WorkerThread.WorkerThreadStart";

    private static ThreadStack Blocked(int id) => new(id,
    [
        "System.Threading.Monitor.Wait",
        "System.Threading.Tasks.Task.SpinThenBlockingWait",
        "System.Threading.Tasks.Task`1[System.__Canon].get_Result",
        "ConcurrencySandbox.SampleService.Orders.Get",
        "Microsoft.AspNetCore.Routing.RequestDelegateFactory.ExecuteWriteStringResponseAsync",
        "System.Threading.ThreadPoolWorkQueue.Dispatch",
        WorkerLoop,
    ]);

    private static ThreadStack Idle(int id) => new(id, ["System.Threading.LowLevelLifoSemaphore.WaitForSignal", WorkerLoop]);

    [Fact]
    public void TheHandlerIsWhatTheCompiledDelegateCalledNotTheApplicationsEndpointFilterAroundIt()
    {
        // The sandbox's blocking fan-out as the observer sampled it (2026-11-27): the handler runs as its query filter's
        // "next", so the last user frame before the pipeline is the filter's lambda, which the report had named.
        string[] frames =
        [
            "UNMANAGED_CODE_TIME", "System.Threading.WaitHandle.WaitMultiple",
            "ConcurrencySandbox.Experiments.FanOut.CallBatch.WaitBlocking",
            "ConcurrencySandbox.Experiments.FanOut.FanOutRunner+<RunAsync>d__4.MoveNext",
            "System.Runtime.CompilerServices.AsyncMethodBuilderCore.Start",
            "ConcurrencySandbox.Experiments.FanOut.FanOutRunner.RunAsync",
            "ConcurrencySandbox.Api.FanOut.FanOutEndpoints+<FanOutAsync>d__3.MoveNext",
            "System.Runtime.CompilerServices.AsyncMethodBuilderCore.Start",
            "ConcurrencySandbox.Api.FanOut.FanOutEndpoints.FanOutAsync",
            "dynamicClass.lambda_method134",
            "ConcurrencySandbox.Validation.DeclaredQueryFilter.InvokeAsync",
            "ConcurrencySandbox.Validation.DeclaredQueryFilter+<>c__DisplayClass5_0.<Create>b__0",
            "dynamicClass.lambda_method135",
            "Microsoft.AspNetCore.Http.RequestDelegateFactory+<>c__DisplayClass101_0.<HandleRequestBodyAndCompileRequestDelegate>b__0",
            "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__237`1[System.__Canon].MoveNext",
        ];

        Assert.Equal("FanOutEndpoints.FanOutAsync", SourceNames.Describe(frames[CallSiteResolver.HandlerFrame(frames, 2)!.Value]));
    }

    [Fact]
    public void TheHandlerOfCodeReachedThroughALibraryIsTheActionThatCalledIt()
    {
        // A client call in a LINQ Select's lambda, below a controller action (the ControllerLinq target's shape).
        string[] frames =
        [
            "System.Net.Http.HttpClient.Send",
            "Shop.CatalogClient.Lookup",
            "Shop.OrdersController+<>c__DisplayClass2_0.<Get>b__0",
            "System.Linq.Enumerable+SelectArrayIterator`2[System.Int32,System.__Canon].ToArray",
            "Shop.OrdersController.Get",
            "dynamicClass.lambda_method12",
            "Microsoft.Extensions.Internal.ObjectMethodExecutor.Execute",
            "Microsoft.AspNetCore.Mvc.Infrastructure.ActionMethodExecutor+SyncObjectResultExecutor.Execute",
        ];

        Assert.Equal(4, CallSiteResolver.HandlerFrame(frames, 1));
        Assert.Null(CallSiteResolver.HandlerFrame(["System.Threading.Thread.Sleep", "Shop.Worker.Run", "System.Threading.ThreadPoolWorkQueue.Dispatch"], 1));
    }

    [Fact]
    public void PoolThreadsAreGroupedByTheirFirstUserFrameAndTheCallItMadeLargestFirst()
    {
        ThreadStack[] stacks = [Blocked(1), Blocked(2), Blocked(3), Idle(4), new(5, ["System.Threading.Thread.Sleep", "Program.Main"])];

        var sites = BlockingSites.Group(stacks);

        Assert.Equal(4, sites.PoolThreads);
        Assert.Equal(5, sites.AllThreads);
        Assert.Equal(new BlockingSite("Orders.Get -> Task.get_Result", 3, InUserCode: true, InRequest: true), sites.Sites[0]);
        Assert.Equal(new BlockingSite(BlockingSites.NoUserCode, 1, InUserCode: false), sites.Sites[1]);
        Assert.Equal("3 of 4 pool threads wait in Orders.Get -> Task.get_Result", sites.Describe(sites.Top!));
        Assert.False(sites.BlocksQueuedWork);
    }

    [Fact]
    public void TheMethodToChangeIsTheOneThatBlocksInSourceWordsNotTheCallerTheJitInlinedItInto()
    {
        var inlined = new BlockingCall("Blocking.DoBlocking", BlockingPrimitive.Result, null, "GET /orders/{id:int}", null, "the lambda in Program (top-level statements)", null);
        var sites = new BlockingSites(3, 4, [new BlockingSite("the lambda in Program (top-level statements) -> Task.get_Result", 3, InUserCode: true, InRequest: true, inlined)]);
        var unresolved = sites with { Sites = [sites.Sites[0] with { Source = null }] };

        Assert.Equal("Blocking.DoBlocking", sites.MethodToChange);
        Assert.Equal("the lambda in Program (top-level statements)", unresolved.MethodToChange);
    }

    [Fact]
    public void PoolThreadsBlockedInUserCodeOutsideARequestAreWorkARequestQueued()
    {
        var call = new ThreadStack(9, ["System.Threading.Thread.Sleep", "App.ThirdParty.Call", "System.Threading.ThreadPoolWorkQueue.Dispatch", WorkerLoop]);

        var sites = BlockingSites.Group([Blocked(1), call]);

        Assert.True(sites.BlocksQueuedWork);
        Assert.Contains(new BlockingSite("ThirdParty.Call -> Thread.Sleep", 1, InUserCode: true, InRequest: false), sites.Sites);
    }

    /// <summary>The sample service's 128-user step (2026-11-27): one thread running a continuation of Orders.PriceAsync sized its need as a fan-out's, 776 threads.</summary>
    [Fact]
    public void AThreadRunningUserCodeOrAFrameworkCallThatIsNoWaitOutsideARequestBlocksNoQueuedWork()
    {
        var running = new ThreadStack(9, ["ConcurrencySandbox.SampleService.Orders+<PriceAsync>d__3.MoveNext", "System.Threading.ExecutionContext.RunInternal", "System.Threading.ThreadPoolWorkQueue.Dispatch", WorkerLoop]);
        var serializing = new BlockingSite("Orders.PriceAsync -> JsonSerializer.Serialize", 1, InUserCode: true, InRequest: false,
            new BlockingCall("Orders.PriceAsync", "a call into JsonSerializer.Serialize", null, null, null, null, null));
        var sleeping = serializing with { CallSite = $"CallBatch.RunAsync -> {BlockingSites.NativeCode}", Source = serializing.Source! with { Primitive = BlockingSites.NativeCode } };

        Assert.False(BlockingSites.Group([Blocked(1), running]).BlocksQueuedWork);
        Assert.False(new BlockingSites(2, 2, [serializing]).BlocksQueuedWork);
        Assert.True(new BlockingSites(2, 2, [sleeping]).BlocksQueuedWork);
    }

    /// <summary>LockSleep in CI (2026-11-29): the lock's waiters, in the runtime's own helper, had their user frame as the leaf; the one holder sleeping inside was named instead of the lock.</summary>
    [Fact]
    public void WaitersOnALockWhoseUserFrameIsTheLeafAreParkedAndNamedBeforeTheHolderSleepingInside()
    {
        var lockCall = new BlockingCall("Inventory.Reserve", BlockingPrimitive.Lock, null, "GET /inventory/{id:int}", null, null, null);
        var waiters = new BlockingSite("Inventory.Reserve", 5, InUserCode: true, InRequest: true, lockCall);
        var holder = new BlockingSite("Inventory.Reserve -> Thread.Sleep", 1, InUserCode: true, InRequest: true, lockCall with { Primitive = BlockingPrimitive.Sleep });
        var running = waiters with { Source = lockCall with { Primitive = "a call into SHA256.HashData" } };

        Assert.True(waiters.Parked);
        Assert.Equal(BlockingPrimitive.Lock, new BlockingSites(6, 6, [waiters, holder]).Top!.Source!.Primitive);
        // A leaf user frame resolved to no wait is not parked, however little CPU it got.
        Assert.False(running.Parked);
    }

    /// <summary>
    /// LockSleep in CI (2026-11-30), its lines resolved so the sleep inside the lock and the wait to enter it are one
    /// method's site: with the pool at two threads one slept and one waited, and the sleep named the site. Seeded counts
    /// and orders: the lock names the method, and is the lock's site, when its waiters and the one holder are as many as
    /// the biggest other group of the method.
    /// </summary>
    [Fact]
    public void AMethodThatSleepsInsideALockIsNamedByTheLockWhenItsWaitersAndTheHolderAreAsMany()
    {
        var waiting = new BlockingCall("Inventory.Reserve", BlockingPrimitive.Lock, new SourceLine("Program.cs", 19), "GET /inventory/{id:int}", null, null, null);
        var sleeping = waiting with { Primitive = BlockingPrimitive.Sleep, Line = new SourceLine("Program.cs", 22) };
        var random = new Random(3803);
        for (var draw = 0; draw < 200; draw++)
        {
            var sleepers = 1 + random.Next(6);
            var waiters = 1 + random.Next(6);
            BlockingSite[] sites =
            [
                new BlockingSite("Inventory.Reserve -> Thread.Sleep", sleepers, InUserCode: true, InRequest: true, sleeping),
                new BlockingSite("Inventory.Reserve -> Monitor.Enter", waiters, InUserCode: true, InRequest: true, waiting),
            ];
            var sampled = new BlockingSites(sleepers + waiters, 20, random.Next(2) == 0 ? sites : [sites[1], sites[0]]);
            var lockNames = waiters + 1 >= sleepers;

            Assert.Equal(sleepers + waiters, sampled.Top!.Threads);
            Assert.Equal(lockNames ? BlockingPrimitive.Lock : BlockingPrimitive.Sleep, sampled.Top.Source!.Primitive);
            Assert.Equal(lockNames, sampled.LockSite is not null);
        }
    }

    [Fact]
    public void AUserFrameThatCalledStraightIntoNativeCodeNamesNativeCodeRatherThanTracePseudoFrame()
    {
        // Dynamic PGO can inline a delegate's blocking callee into the async method; the sample then shows no managed frame below it.
        var call = new ThreadStack(9, ["UNMANAGED_CODE_TIME", "ConcurrencySandbox.Experiments.FanOut.CallBatch+<RunAsync>d__9.MoveNext", "System.Threading.ThreadPoolWorkQueue.Dispatch", WorkerLoop]);

        Assert.Equal($"CallBatch.RunAsync -> {BlockingSites.NativeCode}", BlockingSites.CallSiteOf(call));
    }

    [Fact]
    public void AThreadOutsideThePoolIsNotCountedAsAPoolThread()
    {
        var sites = BlockingSites.Group([new ThreadStack(7, ["System.Threading.Thread.Sleep", "Program.Main"])]);

        Assert.Equal(0, sites.PoolThreads);
        Assert.Null(sites.Top);
    }

    [Fact]
    public void ModuleAndArgumentsAreStrippedFromATraceFrameName()
    {
        Assert.Equal("System.Threading.Tasks.Task.Wait", StackSampler.ShortName("System.Private.CoreLib!System.Threading.Tasks.Task.Wait(int32,value class System.Threading.CancellationToken)"));
    }

    [Fact]
    public void AGenericParameterInTheArgumentsIsNotTakenForTheModule()
    {
        // TraceLog's FullMethodName has no module, and a generic method's arguments hold "!!0": the name read "Threading.CancellationToken)" in /priced's trace.
        const string frame = "System.Net.Http.Json.HttpClientJsonExtensions.GetFromJsonAsync(class System.Net.Http.HttpClient,!!0,value class System.Threading.CancellationToken)";

        Assert.Equal("System.Net.Http.Json.HttpClientJsonExtensions.GetFromJsonAsync", StackSampler.ShortName(frame));
        Assert.Equal("HttpClientJsonExtensions.GetFromJsonAsync", SourceNames.Describe(StackSampler.ShortName(frame)));
    }

    [Theory]
    // 16 of 19 threads in a synchronous Send (the ControllerLinq step that starved), all 8 in one: (nearly) all blocked.
    [InlineData(BlockingPrimitive.HttpSend, 16, 19, true)]
    [InlineData(BlockingPrimitive.Result, 8, 8, true)]
    // 25 of 44 (the step after it that held): the pool has threads to spare.
    [InlineData(BlockingPrimitive.HttpSend, 25, 44, false)]
    // Waiting for a lock's holder: another pool thread would not free it, so a lock never counts.
    [InlineData(BlockingPrimitive.Lock, 8, 8, false)]
    public void APoolIsBlockedWhenNearlyAllItsThreadsWaitInUserCodeOffALock(string primitive, int blocked, int poolThreads, bool poolBlocked)
    {
        var call = new BlockingCall("CatalogClient.Lookup", primitive, null, null, null, null, null);
        var sites = new BlockingSites(poolThreads, poolThreads + 5,
            [new BlockingSite("CatalogClient.Lookup -> HttpClient.Send", blocked, InUserCode: true, InRequest: true, call), new BlockingSite(BlockingSites.NoUserCode, poolThreads - blocked, InUserCode: false)]);

        Assert.Equal(poolBlocked, sites.PoolBlocked);
    }
}
