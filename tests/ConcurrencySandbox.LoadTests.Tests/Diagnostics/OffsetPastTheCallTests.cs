using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Tiered-up code can map a frame's return address past the call to a later statement: LockSleep's handler, sampled
/// waiting in Monitor.Enter once the quick run's one-user step had warmed it, was placed at <c>_reserved++;</c>, two
/// lines below its <c>lock (Gate)</c>, and named there. The method's one call of the wait the stack shows is the one it
/// waits in; a method with two such calls keeps the sampled statement's line (which of the two is not known).
/// </summary>
public sealed class OffsetPastTheCallTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("offset-past-").FullName;

    /// <summary>Seeded shapes: what the lock guards (a sleep, a spin, a file read), how many statements follow the wait.</summary>
    public static TheoryData<int> Seeds() => [1, 2, 3, 4, 5, 6];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void AnOffsetInALaterStatementIsPlacedAtTheMethodsOneLock(int seed)
    {
        var (source, lockLine, laterLine) = Service(seed, locks: 1);

        var call = ResolveAt(source, laterLine);

        Assert.Equal("Inventory.Reserve", call.Method);
        Assert.Equal(BlockingPrimitive.Lock, call.Primitive);
        Assert.Equal(lockLine, call.Line!.Line);
    }

    [Theory]
    [MemberData(nameof(Seeds))]
    public void TwoLocksInTheMethodKeepTheSampledStatementsLine(int seed)
    {
        var (source, _, laterLine) = Service(seed, locks: 2);

        var call = ResolveAt(source, laterLine);

        Assert.Equal("Inventory.Reserve", call.Method);
        Assert.Equal(laterLine, call.Line!.Line);
    }

    /// <summary>A thread parked in Monitor.Enter with Inventory.Reserve's frame at the first IL offset of <paramref name="line"/>.</summary>
    private BlockingCall ResolveAt(string source, int line)
    {
        var file = Path.Combine(_folder, $"Program{Guid.NewGuid():N}.cs");
        File.WriteAllText(file, source);
        var assembly = Path.ChangeExtension(file, ".dll");
        ServedCodeTests.Compile([file], assembly);
        using var module = ModuleSource.Open(assembly)!;
        var reserve = module.Methods().Single(t => module.MethodName(t) == "Inventory.Reserve");
        var offset = Enumerable.Range(0, 400).First(o => module.LineOf(reserve, o)?.Line == line);
        var stack = new ThreadStack(1,
        [
            "System.Threading.Monitor.Enter_Slowpath", "System.Threading.Monitor.Enter", "Inventory.Reserve", "Program+<>c.<<Main>$>b__0_0",
            "Microsoft.AspNetCore.Http.RequestDelegateFactory+<>c__DisplayClass1.<ExecuteTask>b__0",
            "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpProtocol+<ProcessRequests>d__1.MoveNext",
        ])
        {
            Locations = [null, null, new FrameLocation(assembly, reserve, offset)],
        };
        using var resolver = new CallSiteResolver("/inventory/1", null);
        return resolver.Resolve(stack, 2, [assembly]);
    }

    /// <summary>The service of a seed, with the line of its (first) lock and of a statement after the wait.</summary>
    private static (string Source, int LockLine, int LaterLine) Service(int seed, int locks)
    {
        var random = new Random(seed);
        string[] guarded = ["Thread.Sleep(50);", "Thread.SpinWait(1000);", "_ = File.Exists(\"/tmp/x\");"];
        var lines = new List<string>
        {
            "using System;",
            "using System.IO;",
            "using System.Threading;",
            "using Microsoft.AspNetCore.Builder;",
            "using Microsoft.AspNetCore.Http;",
            "var app = WebApplication.CreateBuilder(args).Build();",
            "app.MapGet(\"/inventory/{id:int}\", (int id) => Inventory.Reserve(id));",
            "app.Run();",
            "internal static class Inventory",
            "{",
            "    private static readonly object Gate = new();",
            "    private static readonly object Other = new();",
            "    private static int _reserved;",
            "    public static string Reserve(int id)",
            "    {",
        };
        var lockLine = lines.Count + 1;
        lines.Add("        lock (Gate)");
        lines.Add("        {");
        lines.Add($"            {guarded[random.Next(guarded.Length)]}");
        for (var i = random.Next(0, 3); i > 0; i--)
        {
            lines.Add("            _reserved += id;");
        }
        var laterLine = lines.Count + 1;
        lines.Add("            _reserved++;");
        lines.Add("        }");
        if (locks == 2)
        {
            lines.Add("        lock (Other)");
            lines.Add("        {");
            lines.Add("            _reserved--;");
            lines.Add("        }");
        }
        lines.Add("        return $\"item {id}: reservation {_reserved}\";");
        lines.Add("    }");
        lines.Add("}");
        return (string.Join('\n', lines), lockLine, laterLine);
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
