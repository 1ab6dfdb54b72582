using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>The path up from the method that blocks names each caller once, though an async caller shows two frames (its state machine and the stub that started it).</summary>
public sealed class CallSitesPathTests
{
    [Fact]
    public void AnAsyncCallerSeenAsItsStateMachineAndItsStubIsOneStep()
    {
        var call = new BlockingCall("PaymentsWork.Resolve", BlockingPrimitive.HttpSend, new SourceLine("/src/Chain.cs", 10), "GET /payments/{id:int}", null, null, null)
        {
            CalledFrom =
            [
                new CallStep("PaymentsWork.Load", new SourceLine("/src/Chain.cs", 6)),
                new CallStep("PaymentsMiddleware.InvokeAsync", new SourceLine("/src/PaymentsMiddleware.cs", 11)),
                new CallStep("PaymentsMiddleware.InvokeAsync", null),
            ],
            EveryRequest = true,
        };

        Assert.Equal(["PaymentsWork.Load", "PaymentsMiddleware.InvokeAsync"], call.CalledFrom.Select(s => s.Method));
        Assert.Equal(11, call.CalledFrom[1].Line!.Line);
        Assert.EndsWith("called from PaymentsWork.Load (Chain.cs:6), from PaymentsMiddleware.InvokeAsync (PaymentsMiddleware.cs:11), in middleware, so for every request (GET /payments/{id:int} among them)", call.Describe(), StringComparison.Ordinal);
        Assert.Equal(BlockingCall.EveryRequestWords, call.Scope);
    }

    [Fact]
    public void TheSameMethodTwiceApartIsKeptTwice()
    {
        var call = new BlockingCall("A.X", BlockingPrimitive.Sleep, null, null, null, null, null)
        {
            CalledFrom = [new CallStep("B.Y", null), new CallStep("C.Z", null), new CallStep("B.Y", null)],
        };

        Assert.Equal(["B.Y", "C.Z", "B.Y"], call.CalledFrom.Select(s => s.Method));
    }
}
