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
    // A FIFO read to its end (File.ReadAllBytes of a path with no length), and a FIFO's open waiting for its writer.
    [InlineData(BlockingPrimitive.FileIo, "File.ReadAllBytes", "File.ReadAllBytesUnknownLength", "RandomAccess.ReadAtOffset", "Sys.Read")]
    [InlineData(BlockingPrimitive.FileIo, "the constructor of FileStream", "FileStreamHelpers.ChooseStrategy", "SafeFileHandle.Open", "Sys.Open")]
    [InlineData(BlockingPrimitive.FileIo, "RandomAccess.Read", "RandomAccess.ReadAtOffset")]
    // A pipe read called on the pipe (anonymous or named: on Unix a socket below it), and ReadExactly on a pipe.
    [InlineData(BlockingPrimitive.PipeRead, "PipeStream.Read", "PipeStream.ReadCore", "Socket.Receive", "SocketPal.TryCompleteReceiveFrom")]
    [InlineData(BlockingPrimitive.PipeRead, "PipeStream.ReadByte", "PipeStream.Read")]
    [InlineData(BlockingPrimitive.StreamRead, "Stream.ReadExactly", "Stream.ReadAtLeastCore", "PipeStream.Read", "PipeStream.ReadCore")]
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
    public void ReadExactlyOnAPipeWhoseOwnFramesTheJitInlinedIsThePipesRead()
    {
        // ReadExactly and ReadAtLeastCore inlined into the user's frame: the pipe's read is the nearest frame left.
        Assert.Equal(BlockingPrimitive.PipeRead, BlockingPrimitive.Classify(["PipeStream.Read", "PipeStream.ReadCore", "Socket.Receive"], ["Local.Pipe", "Stream.ReadExactly"]));
        Assert.True(BlockingPrimitive.Compatible(BlockingPrimitive.Match("Stream.ReadExactly"), BlockingPrimitive.PipeRead));
        // A pipe's read with its own frames inlined too: the socket or the read syscall's wait below it.
        Assert.True(BlockingPrimitive.Compatible(BlockingPrimitive.PipeRead, BlockingPrimitive.SocketIo));
        // A pipe's read is no Task wait, no file read the developer called.
        Assert.False(BlockingPrimitive.Compatible(BlockingPrimitive.PipeRead, BlockingPrimitive.Result));
        Assert.False(BlockingPrimitive.Compatible(BlockingPrimitive.FileIo, BlockingPrimitive.PipeRead));
    }

    [Fact]
    public void AThreadWaitingToOpenAFifoWaits()
    {
        Assert.True(BlockingPrimitive.IsWait("SafeFileHandle.Open"));
        Assert.True(BlockingPrimitive.IsKnown(BlockingPrimitive.PipeRead));
    }

    [Fact]
    public void AFrameThatIsNoBlockingEntryPointIsNotClassified()
    {
        Assert.Null(BlockingPrimitive.Classify(["Enumerable.ToArray", "Dictionary.FindValue"], ["Orders.Total"]));
        // A user type whose name ends like a framework type's is not that type.
        Assert.Null(BlockingPrimitive.Match("MyTask.Wait"));
    }
}
