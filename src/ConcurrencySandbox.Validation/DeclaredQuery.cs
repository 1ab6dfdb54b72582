using System.Linq.Expressions;
using System.Reflection;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Http;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// An endpoint's query inputs as one positional record, so the handler's signature shows them typed, for example
/// <c>sealed record ContentionQuery(int HoldMs) : DeclaredQuery&lt;ContentionQuery&gt;</c>. Each member fills the declared
/// parameter of its name, case-insensitively (<c>HoldMs</c> fills <c>holdMs</c>), or the one whose
/// <see cref="QueryParameter.Member"/> names it where the name depends on the route (work's amount is cycles, iterations
/// or milliseconds); members come in the declared order (<see cref="QueryParameterEndpointExtensions"/>).
/// <see cref="DeclaredQueryFilter"/> checks the pairing when the app starts. An integer is a <see cref="long"/> or an
/// <see cref="int"/>, a number a <see cref="double"/>, a choice a <see cref="string"/> in its declared spelling; a nullable
/// member is null when the query leaves the parameter out, any other member takes the declared default.
/// </summary>
/// <remarks>
/// Minimal APIs bind it through <see cref="BindAsync"/> rather than <c>[AsParameters]</c>, whose per-member binding
/// fails on a non-number before any filter runs (a bare 400) and cannot know defaults read from configuration.
/// Binding never fails: the values of a bad query are placeholders that the handler never sees, because
/// <see cref="DeclaredQueryFilter"/> answers it with the 400 first.
/// </remarks>
public abstract record DeclaredQuery<TSelf>
    where TSelf : DeclaredQuery<TSelf>
{
    public static ValueTask<TSelf?> BindAsync(HttpContext context)
    {
        var declared = context.GetEndpoint()?.Metadata.GetMetadata<QueryParameterMetadata>()
            ?? throw new InvalidOperationException($"{typeof(TSelf).Name} is bound through the endpoint's query declarations: declare them with WithQueryParameters.");
        var reader = new QueryReader(context.Request.QueryString);
        var bound = DeclaredQueryBinding.Bind<TSelf>(reader, declared.Parameters(context.RequestServices));
        // The filter judges the query from this reading instead of parsing it a second time.
        context.Items[DeclaredQueryFilter.ReadingKey] = reader;
        return ValueTask.FromResult<TSelf?>(bound);
    }
}

/// <summary>How a <see cref="DeclaredQuery{TSelf}"/> record pairs with its declarations and is built from a query.</summary>
internal static class DeclaredQueryBinding
{
    /// <summary>
    /// Builds the record from <paramref name="reader"/>, which reads every declaration once, as the filter would, through
    /// a constructor call compiled once per record type (no argument array, boxing or reflection per request).
    /// </summary>
    public static TSelf Bind<TSelf>(QueryReader reader, IReadOnlyList<QueryParameter> parameters) => Shape<TSelf>.Build(reader, parameters);

    /// <summary>Compiles <paramref name="record"/>'s constructor call now, when the endpoint is built, rather than on its first request.</summary>
    public static void Prepare(Type record) => RuntimeHelpers.RunClassConstructor(typeof(Shape<>).MakeGenericType(record).TypeHandle);

    /// <summary>
    /// Why <paramref name="record"/> cannot take <paramref name="parameters"/>, or null when it can: each member must fill
    /// the declaration of its name (<see cref="QueryParameter.MemberName"/>, case-insensitive), in the declared order
    /// (so two same-typed members swapped, delayMs and jitterMs, fail rather than bind), with a type that holds it.
    /// </summary>
    public static string? Mismatch(Type record, IReadOnlyList<QueryParameter> parameters)
    {
        var members = MembersOf(ConstructorOf(record));
        var declared = string.Join(", ", parameters.Select(p => p.Name));
        if (members.FirstOrDefault(m => !parameters.Any(p => Fills(p, m))) is { } extra)
        {
            return $"{record.Name}.{extra.Name} fills no declared query parameter (the endpoint declares {declared}).";
        }

        if (parameters.FirstOrDefault(p => !members.Any(m => Fills(p, m))) is { } missing)
        {
            return $"{record.Name} has no member {missing.MemberName} for the declared query parameter '{missing.Name}'.";
        }

        for (var i = 0; i < members.Length; i++)
        {
            if (i >= parameters.Count || !Fills(parameters[i], members[i]))
            {
                var other = i < parameters.Count ? parameters[i].Name : "nothing";
                return $"{record.Name}.{members[i].Name} stands where the endpoint declares '{other}': list the members in the declared order ({declared}).";
            }

            var type = members[i].Type;
            var fits = parameters[i] switch
            {
                IntegerParameter p when type == typeof(int) => p.Min >= int.MinValue && p.Max <= int.MaxValue,
                IntegerParameter => type == typeof(long),
                NumberParameter => type == typeof(double),
                ChoiceParameter => type == typeof(string),
                _ => false,
            };
            if (!fits)
            {
                return $"{record.Name}.{members[i].Name} ({type.Name}) cannot hold '{parameters[i].Name}', {parameters[i].AllowedRange}.";
            }
        }

        return parameters.Count > members.Length
            ? $"{record.Name} has {members.Length} members but the endpoint declares {parameters.Count} parameters ({declared}): two of them fill one member."
            : null;
    }

    private static bool Fills(QueryParameter parameter, Member member) => string.Equals(parameter.MemberName, member.Name, StringComparison.OrdinalIgnoreCase);

    // A positional record has one public constructor; its copy constructor is protected.
    private static ConstructorInfo ConstructorOf(Type record) => record.GetConstructors().Single();

    private static Member[] MembersOf(ConstructorInfo constructor)
    {
        var nullability = new NullabilityInfoContext();
        return [.. constructor.GetParameters().Select(p => new Member(
            p.Name ?? string.Empty,
            p.ParameterType,
            Nullable.GetUnderlyingType(p.ParameterType) ?? p.ParameterType,
            Nullable.GetUnderlyingType(p.ParameterType) is not null || nullability.Create(p).WriteState == NullabilityState.Nullable))];
    }

    /// <summary>
    /// <c>(reader, parameters) =&gt; new TSelf(v0, v1, ...)</c>, where each value is the typed read of its declaration
    /// (<see cref="Mismatch"/> has checked the kinds when the endpoint was built), narrowed to int where the member is
    /// one, and null for a nullable member the query left out. Every declaration is read, so every error is recorded.
    /// </summary>
    private static Func<QueryReader, IReadOnlyList<QueryParameter>, TSelf> Compile<TSelf>()
    {
        var constructor = ConstructorOf(typeof(TSelf));
        var reader = Expression.Parameter(typeof(QueryReader), "reader");
        var parameters = Expression.Parameter(typeof(IReadOnlyList<QueryParameter>), "parameters");
        var item = typeof(IReadOnlyList<QueryParameter>).GetProperty("Item")!;
        var arguments = MembersOf(constructor).Select((member, i) =>
        {
            var kind = member.Type == typeof(double) ? typeof(NumberParameter)
                : member.Type == typeof(string) ? typeof(ChoiceParameter)
                : typeof(IntegerParameter);
            var parameter = Expression.Variable(typeof(QueryParameter), "parameter");
            var value = Expression.Variable(member.Type, "value");
            var read = Expression.Call(reader, typeof(QueryReader).GetMethod(nameof(QueryReader.Read), [kind])!, Expression.Convert(parameter, kind));
            var sent = Expression.Call(reader, typeof(QueryReader).GetMethod(nameof(QueryReader.Sent))!, parameter);
            return (Expression)Expression.Block(
                member.DeclaredType,
                [parameter, value],
                Expression.Assign(parameter, Expression.Property(parameters, item, Expression.Constant(i))),
                Expression.Assign(value, Expression.Convert(read, member.Type)),
                member.Nullable
                    ? Expression.Condition(sent, Expression.Convert(value, member.DeclaredType), Expression.Default(member.DeclaredType))
                    : Expression.Convert(value, member.DeclaredType));
        });
        return Expression.Lambda<Func<QueryReader, IReadOnlyList<QueryParameter>, TSelf>>(Expression.New(constructor, arguments), reader, parameters).Compile();
    }

    /// <param name="DeclaredType">The constructor parameter's type, <c>int?</c> for example.</param>
    /// <param name="Type">The value's type, <c>int</c> for example.</param>
    private sealed record Member(string Name, Type DeclaredType, Type Type, bool Nullable);

    private static class Shape<TSelf>
    {
        public static readonly Func<QueryReader, IReadOnlyList<QueryParameter>, TSelf> Build = Compile<TSelf>();
    }
}
