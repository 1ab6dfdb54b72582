using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Tests.Diagnostics.Corpus;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A handler calls a repository through its interface, and the class DI makes implements it by inheritance: the method is
/// a base class's (a generic <c>RepositoryBase&lt;TEntity&gt;</c>'s <c>Get&lt;TKey&gt;</c>, the shape of the cold service Fleet).
/// When the JIT inlined that method into the handler (guarded devirtualization), the handler's statement calls only the
/// interface: the base class's method is the one that blocks, named with its line and "inlined by the JIT into" the
/// handler, never the handler at its own line. Services generated here from a seed, compiled with their PDB.
/// </summary>
public sealed class InheritedImplementationTests : IDisposable
{
    private readonly string _folder = Directory.CreateTempSubdirectory("inherited-").FullName;

    /// <summary>Seeds: a generic or a plain base class, a generic or a plain Get, waiting on .Result or sleeping, names drawn from lists.</summary>
    public static TheoryData<int> Seeds() => [1, 2, 3, 4, 5, 6];

    [Theory]
    [MemberData(nameof(Seeds))]
    public void TheInheritedMethodTheJitInlinedIntoTheHandlerIsNamedWithItsLine(int seed)
    {
        var random = new Random(seed);
        var resource = ServiceGenerator.Resources[random.Next(ServiceGenerator.Resources.Length)];
        var type = char.ToUpperInvariant(resource[0]) + resource[1..];
        var genericBase = seed % 2 == 1;
        var genericGet = seed % 4 < 2;
        var sleeps = random.Next(2) == 0;
        var baseName = genericBase ? "RepositoryBase" : $"{type}StoreBase";
        var (baseDeclaration, entity) = genericBase ? ($"{baseName}<TEntity> where TEntity : new()", "TEntity") : (baseName, $"{type}Record");
        var get = genericGet ? "Get<TKey>(TKey key)" : "Get(int key)";
        var wait = sleeps ? "Thread.Sleep(50);" : "var value = Task.FromResult(key).Result;";
        var source = Path.Combine(_folder, $"Program{seed}.cs");
        File.WriteAllText(source, $$"""
            using System.Threading;
            using System.Threading.Tasks;
            using Microsoft.AspNetCore.Builder;
            using Microsoft.AspNetCore.Http;
            using Microsoft.Extensions.DependencyInjection;

            var builder = WebApplication.CreateBuilder(args);
            builder.Services.AddScoped<I{{type}}Repository, {{type}}Repository>();
            var app = builder.Build();
            app.MapGet("/{{resource}}/{id:int}", (int id, I{{type}}Repository repository) => repository.Get(id).Id);
            app.Run();

            public sealed class {{type}}Record
            {
                public int Id { get; set; }
            }

            public abstract class {{baseDeclaration}}
            {
                public {{entity}} {{get}}
                {
                    {{wait}}
                    return new {{entity}}();
                }
            }

            public interface I{{type}}Repository
            {
                {{type}}Record {{get}};
            }

            public sealed class {{type}}Repository : {{baseName}}{{(genericBase ? $"<{type}Record>" : "")}}, I{{type}}Repository;
            """);
        var waitLine = Array.FindIndex(File.ReadAllLines(source), l => l.Contains(wait, StringComparison.Ordinal)) + 1;
        var assembly = Path.Combine(_folder, $"Shop{seed}.dll");
        ServedCodeTests.Compile([source], assembly);
        using var module = ModuleSource.Open(assembly)!;
        var handler = module.Methods().Single(t => module.MethodName(t).StartsWith("Program+<>c.<<Main>$>b__", StringComparison.Ordinal));
        var callsGet = module.Calls(handler).First(c => c.Callee.EndsWith(".Get", StringComparison.Ordinal)).ILOffset;
        string[] waitFrames = sleeps
            ? ["System.Threading.Thread.SleepInternal"]
            : ["System.Threading.Tasks.Task.SpinThenBlockingWait", "System.Threading.Tasks.Task.InternalWaitCore", "System.Threading.Tasks.Task`1[System.Int32].GetResultCore"];
        var stack = new ThreadStack(1,
        [
            .. waitFrames, module.MethodName(handler), "dynamicClass.lambda_method3",
            "Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke", "System.Threading.ThreadPoolWorkQueue.Dispatch",
        ])
        {
            Locations = [.. waitFrames.Select(_ => (FrameLocation?)null), new FrameLocation(assembly, handler, callsGet)],
        };
        using var resolver = new CallSiteResolver($"/{resource}/1");

        var call = resolver.Resolve(stack, waitFrames.Length, [assembly]);

        Assert.Equal($"{baseName}.Get", call.Method);
        Assert.False(call.Unsure, call.Method);
        Assert.Equal(waitLine, call.Line?.Line);
        Assert.Equal(sleeps ? BlockingPrimitive.Sleep : BlockingPrimitive.Result, call.Primitive);
        Assert.Equal("the lambda in Program (top-level statements)", call.InlinedInto);
        Assert.Equal($"GET /{resource}/{{id:int}}", call.Route);
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);
}
