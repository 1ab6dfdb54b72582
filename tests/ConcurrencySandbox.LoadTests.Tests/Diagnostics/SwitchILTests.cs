using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A method whose IL holds a <c>switch</c> (a C# switch over dense integers, an async method's state machine) is read
/// call by call past it: the reader once skipped the jump table from the offset before its count, 4 bytes short, read
/// the table as opcodes and, in the test assembly of 2026-11-30, ran out of the method's bytes (BadImageFormatException
/// out of a run's diagnosis, from the DI registrations' scan of every method). Services generated from a seed.
/// </summary>
public sealed class SwitchILTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("switch-il-").FullName;

    public static TheoryData<int> Seeds() => [.. Enumerable.Range(1, 16)];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void EveryCallAfterASwitchIsRead(int seed)
    {
        var random = new Random(seed);
        var cases = random.Next(3, 40);
        var before = random.Next(0, 3);
        var after = random.Next(1, 4);
        var source = $$"""
            internal static class Router
            {
                public static int Pick(int kind)
                {
                    {{string.Concat(Enumerable.Range(0, before).Select(i => $"Probe.Before{i}(kind);\n"))}}
                    var score = 0;
                    switch (kind)
                    {
                        {{string.Concat(Enumerable.Range(0, cases).Select(i => $"case {i}: score = {random.Next(1000)} + kind; break;\n"))}}
                        default: score = -1; break;
                    }
                    {{string.Concat(Enumerable.Range(0, after).Select(i => $"Probe.After{i}(score);\n"))}}
                    return score;
                }
            }

            internal static class Probe
            {
                {{string.Concat(Enumerable.Range(0, before).Select(i => $"public static void Before{i}(int v) {{ System.Console.Write(v); }}\n"))}}
                {{string.Concat(Enumerable.Range(0, after).Select(i => $"public static void After{i}(int v) {{ System.Console.Write(v); }}\n"))}}
                public static void Main() => System.Console.Write(Router.Pick(System.Environment.TickCount % 50));
            }
            """;
        var file = Path.Combine(_folder, $"Router{seed}.cs");
        File.WriteAllText(file, source);
        var assembly = Path.ChangeExtension(file, ".dll");
        ServedCodeTests.Compile([file], assembly);
        using var module = ModuleSource.Open(assembly)!;
        var pick = module.Methods().Single(t => module.MethodName(t) == "Router.Pick");

        var probes = module.Calls(pick).Select(c => c.Callee).Where(c => c.StartsWith("Probe.", StringComparison.Ordinal)).ToList();

        Assert.Equal([.. Enumerable.Range(0, before).Select(i => $"Probe.Before{i}"), .. Enumerable.Range(0, after).Select(i => $"Probe.After{i}")], probes);
        // Every method of the module is read to its end, as the DI registrations' scan reads them.
        Assert.All(module.Methods(), token => module.Calls(token));
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
