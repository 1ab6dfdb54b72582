using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>The blocking call in words, from the framework frames below the user's method (nearest it first) and the calls its IL makes.</summary>
public sealed class BlockingPrimitiveTests
{
    [Theory]
    [InlineData(BlockingPrimitive.Result, "Task.get_Result", "Task.InternalWait", "Task.SpinThenBlockingWait", "Monitor.Wait")]
    [InlineData(BlockingPrimitive.Wait, "Task.Wait", "Task.InternalWaitCore")]
    [InlineData(BlockingPrimitive.GetResult, "TaskAwaiter.GetResult", "TaskAwaiter.HandleNonSuccessAndDebuggerNotification", "Task.InternalWait")]
    // Send waits on sockets and tasks further down: the frame nearest the user's code names what the developer called.
    [InlineData(BlockingPrimitive.HttpSend, "HttpClient.Send", "HttpMessageInvoker.Send", "SocketsHttpHandler.Send", "Task.GetResultCore", "Task.InternalWait")]
    [InlineData(BlockingPrimitive.Sleep, "Thread.Sleep", "Thread.SleepInternal")]
    [InlineData(BlockingPrimitive.Lock, "Monitor.Enter", "Monitor.ReliableEnter")]
    [InlineData(BlockingPrimitive.Lock, "Lock.EnterScope", "Lock.EnterAndGetCurrentThreadId")]
    [InlineData(BlockingPrimitive.FileIo, "FileStream.Read", "RandomAccess.ReadAtOffset")]
    [InlineData(BlockingPrimitive.SocketIo, "Socket.Receive")]
    [InlineData(BlockingPrimitive.Semaphore, "SemaphoreSlim.Wait", "SemaphoreSlim.WaitUntilCountOrTimeout")]
    [InlineData(BlockingPrimitive.WaitHandle, "WaitHandle.WaitOne", "WaitHandle.WaitOneNoCheck")]
    public void TheFrameNearestTheUsersCodeNamesThePrimitive(string expected, params string[] framesBelow)
    {
        Assert.Equal(expected, BlockingPrimitive.Classify(framesBelow, []));
    }

    [Theory]
    [InlineData("System.Threading.Tasks.Task`1.get_Result", BlockingPrimitive.Result)]
    [InlineData("System.Threading.Tasks.Task.Wait", BlockingPrimitive.Wait)]
    [InlineData("System.Runtime.CompilerServices.TaskAwaiter`1.GetResult", BlockingPrimitive.GetResult)]
    public void WhenTheJitInlinedTheWaitIntoTheUsersFrameItsILTellsWhichWaitItWas(string calledByUser, string expected)
    {
        Assert.Equal(expected, BlockingPrimitive.Classify(["Task.InternalWait", "Task.SpinThenBlockingWait"], ["Blocking.DoAsync", SourceNames.Describe(calledByUser)]));
    }

    [Fact]
    public void AnInlinedWaitWhoseCallTheILDoesNotShowIsStillABlockingWaitOnATask()
    {
        Assert.Equal(BlockingPrimitive.TaskWait, BlockingPrimitive.Classify(["Task.InternalWait"], ["Blocking.DoBlocking"]));
    }

    [Fact]
    public void OnlyNativeFramesBelowTheUserFrameLeaveTheCallsOfItsStatementToSay()
    {
        Assert.Equal(BlockingPrimitive.Sleep, BlockingPrimitive.Classify([], ["Inventory.Log", "Thread.Sleep"]));
    }

    [Fact]
    public void AFrameThatIsNoBlockingEntryPointIsNotClassified()
    {
        Assert.Null(BlockingPrimitive.Classify(["Enumerable.ToArray", "Dictionary.FindValue"], ["Orders.Total"]));
        // A user type whose name ends like a framework type's is not that type.
        Assert.Null(BlockingPrimitive.Match("MyTask.Wait"));
    }
}
