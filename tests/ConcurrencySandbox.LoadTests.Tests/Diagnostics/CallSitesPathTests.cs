using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// The path up from the method that blocks names each caller once, though an async caller shows two frames (its state
/// machine and the stub that started it); and a wait handle sampled below a statement that reads a stream is that read.
/// </summary>
public sealed class CallSitesPathTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("call-path-").FullName;

    /// <summary>
    /// The benchmark's Svc19MiddlewareStreamReadD3 (seed 3701) was sampled parked in a wait handle in TicketsWork.Price,
    /// whose statement reads the response's stream: named "blocks on a wait handle" at the right line (wrong), the stream
    /// read's wait was not matched to the read. Now the read is the call, and its primitive the one named.
    /// </summary>
    [Fact]
    public void AWaitHandleBelowAStreamReadIsNamedAsTheRead()
    {
        var source = Path.Combine(_folder, "Program.cs");
        File.WriteAllText(source, """
            using System.IO;
            using Microsoft.AspNetCore.Builder;

            var app = WebApplication.CreateBuilder(args).Build();
            app.MapGet("/tickets/{id:int}", (int id) => TicketsWork.Price(Stream.Null));
            app.Run();

            public static class TicketsWork
            {
                public static int Price(Stream body)
                {
                    body.ReadExactly(new byte[2]);
                    return 2;
                }
            }
            """);
        var assembly = Path.Combine(_folder, "Tickets.dll");
        ServedCodeTests.Compile([source], assembly);
        using var module = ModuleSource.Open(assembly)!;
        var price = module.Methods().Single(t => module.MethodName(t) == "TicketsWork.Price");
        var read = module.Calls(price).First(c => c.Callee.EndsWith("ReadExactly", StringComparison.Ordinal)).ILOffset;
        var stack = new ThreadStack(1,
        [
            "System.Threading.WaitHandle.WaitOneNoCheck", "System.Threading.WaitHandle.WaitOne", "TicketsWork.Price",
            "dynamicClass.lambda_method3", "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", "System.Threading.ThreadPoolWorkQueue.Dispatch",
        ])
        {
            Locations = [null, null, new FrameLocation(assembly, price, read)],
        };
        using var resolver = new CallSiteResolver("/tickets/1");

        var call = resolver.Resolve(stack, 2, [assembly]);

        Assert.Equal("TicketsWork.Price", call.Method);
        Assert.Equal(BlockingPrimitive.StreamRead, call.Primitive);
        Assert.Contains("ReadExactly", File.ReadAllLines(source)[call.Line!.Line - 1], StringComparison.Ordinal);
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);

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
