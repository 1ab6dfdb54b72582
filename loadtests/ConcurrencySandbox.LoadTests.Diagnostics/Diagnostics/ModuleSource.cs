using System.Collections.Immutable;
using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace ConcurrencySandbox.LoadTests.Diagnostics;

/// <summary>
/// A call one method's IL makes: the callee as "Namespace.Type.Method" and, when it is in the same module, its token;
/// <paramref name="Delegate"/> when the IL does not call the method but makes a delegate of it (ldftn: a lambda handed
/// to LINQ, Task.Run or a Map call), which whoever holds the delegate calls later.
/// </summary>
internal sealed record ILCall(int ILOffset, string Callee, int? LocalToken, bool Delegate = false)
{
    /// <summary>A generic method's type arguments' full names (AddSingleton&lt;IQuotes, Quotes&gt;'s "IQuotes", "Quotes"); empty for others.</summary>
    public IReadOnlyList<string> TypeArguments { get; init; } = [];

    /// <summary>The callee's type ("Namespace.Type+Nested") and method name.</summary>
    public (string Type, string Method) Split() => (Callee[..Math.Max(0, Callee.LastIndexOf('.'))], Callee[(Callee.LastIndexOf('.') + 1)..]);
}

/// <summary>A type of the module: its full name ("Namespace.Type+Nested"), its base type's and its interfaces' full names, its methods' tokens.</summary>
internal sealed record ModuleType(string Name, string? BaseType, IReadOnlyList<string> Interfaces, IReadOnlyList<int> Methods);

/// <summary>A method's source position: the document and the line of a sequence point.</summary>
public sealed record SourceLine(string File, int Line);

/// <summary>
/// One module of the observed process read from disk with System.Reflection.Metadata: its methods' IL (the calls they
/// make), their custom attributes, and, when the portable PDB beside it matches it (its ID is the one the module's
/// debug directory names), the sequence points that turn an IL offset into a file and line.
/// </summary>
internal sealed class ModuleSource : IDisposable
{
    private static readonly Dictionary<short, OpCode> OpCodesByValue = typeof(OpCodes)
        .GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(f => (OpCode)f.GetValue(null)!)
        .ToDictionary(o => o.Value);

    private readonly PEReader _pe;
    private readonly MetadataReader _metadata;
    private readonly MetadataReaderProvider? _pdbProvider;
    private readonly MetadataReader? _pdb;
    private readonly Dictionary<int, int?> _moveNexts = [];

    private ModuleSource(string path, PEReader pe, MetadataReaderProvider? pdbProvider, string? pdbNote)
    {
        Path = path;
        _pe = pe;
        _metadata = pe.GetMetadataReader();
        _pdbProvider = pdbProvider;
        _pdb = pdbProvider?.GetMetadataReader();
        PdbNote = pdbNote;
    }

    public string Path { get; }

    /// <summary>Why there are no lines for this module (no PDB, a PDB that does not match), or null when there are.</summary>
    public string? PdbNote { get; }

    /// <summary>The module at <paramref name="path"/>, or null when it is not a readable managed module.</summary>
    public static ModuleSource? Open(string path)
    {
        if (!File.Exists(path))
        {
            return null;
        }
        var pe = new PEReader(File.OpenRead(path));
        try
        {
            if (!pe.HasMetadata)
            {
                pe.Dispose();
                return null;
            }
            var beside = System.IO.Path.ChangeExtension(path, ".pdb");
            // TryOpenAssociatedPortablePdb accepts a PDB only when its ID matches the module's CodeView entry.
            if (pe.TryOpenAssociatedPortablePdb(path, p => File.Exists(p) ? File.OpenRead(p) : null, out var provider, out _) && provider is not null)
            {
                return new ModuleSource(path, pe, provider, null);
            }
            var note = File.Exists(beside)
                ? $"the PDB beside {System.IO.Path.GetFileName(path)} does not match it (built from another compilation): names without lines"
                : $"{System.IO.Path.GetFileName(path)} ships no portable PDB: names without lines";
            return new ModuleSource(path, pe, null, note);
        }
        catch (BadImageFormatException)
        {
            pe.Dispose();
            return null;
        }
    }

    /// <summary>"Namespace.Type+Nested.Method" of a method defined in this module.</summary>
    public string MethodName(int token)
    {
        var method = _metadata.GetMethodDefinition(MethodHandle(token));
        return $"{TypeName(method.GetDeclaringType())}.{_metadata.GetString(method.Name)}";
    }

    /// <summary>
    /// The method a lambda or local function was written in: "&lt;Get&gt;b__1_0" on OrdersController (or on its closure
    /// class) is in OrdersController.Get; null for a method the developer named.
    /// </summary>
    public int? EnclosingMethod(int token)
    {
        var method = _metadata.GetMethodDefinition(MethodHandle(token));
        var name = _metadata.GetString(method.Name);
        var close = name.IndexOf('>', StringComparison.Ordinal);
        if (!name.StartsWith('<') || close < 0)
        {
            return null;
        }
        var enclosing = name[1..close];
        var type = method.GetDeclaringType();
        if (_metadata.GetString(_metadata.GetTypeDefinition(type).Name).StartsWith('<'))
        {
            type = _metadata.GetTypeDefinition(type).GetDeclaringType();
        }
        return _metadata.GetTypeDefinition(type).GetMethods()
            .Where(m => _metadata.GetString(_metadata.GetMethodDefinition(m).Name) == enclosing)
            .Select(m => (int?)MetadataTokens.GetToken(m))
            .FirstOrDefault();
    }

    /// <summary>The tokens of the methods defined in this module that have IL.</summary>
    public IEnumerable<int> Methods() => _metadata.MethodDefinitions
        .Where(m => _metadata.GetMethodDefinition(m).RelativeVirtualAddress != 0)
        .Select(m => MetadataTokens.GetToken(m));

    /// <summary>The calls in the method's IL from <paramref name="fromOffset"/> up to (not including) <paramref name="toOffset"/>.</summary>
    public IReadOnlyList<ILCall> Calls(int token, int fromOffset = 0, int toOffset = int.MaxValue)
    {
        var method = _metadata.GetMethodDefinition(MethodHandle(token));
        if (method.RelativeVirtualAddress == 0)
        {
            return [];
        }
        var il = _pe.GetMethodBody(method.RelativeVirtualAddress).GetILReader();
        var calls = new List<ILCall>();
        while (il.RemainingBytes > 0)
        {
            var offset = il.Offset;
            var value = (short)il.ReadByte();
            if (value == 0xFE)
            {
                value = (short)(0xFE00 | il.ReadByte());
            }
            if (!OpCodesByValue.TryGetValue(value, out var opCode))
            {
                break;
            }
            if (opCode.OperandType == OperandType.InlineMethod)
            {
                var callee = il.ReadInt32();
                if (offset >= fromOffset && offset < toOffset)
                {
                    calls.Add(Call(offset, callee) with { Delegate = opCode == OpCodes.Ldftn || opCode == OpCodes.Ldvirtftn });
                }
                continue;
            }
            // The size read first: a switch's reads its count, which `il.Offset += ...` would add to the offset before it.
            var operand = OperandSize(opCode, ref il);
            if (operand > il.RemainingBytes)
            {
                break;
            }
            il.Offset += operand;
        }
        return calls;
    }

    /// <summary>The statement (sequence point) the IL offset is in, with the offset where the next one starts; null without a matching PDB.</summary>
    public (SourceLine Line, int Start, int End)? Statement(int token, int ilOffset)
    {
        // -1: the trace had no IL-to-native map for the frame (ReadyToRun code): no statement, not the method's first.
        if (_pdb is null || ilOffset < 0)
        {
            return null;
        }
        var points = _pdb.GetMethodDebugInformation(MethodHandle(token).ToDebugInformationHandle()).GetSequencePoints().ToList();
        var index = points.FindLastIndex(p => p.Offset <= Math.Max(0, ilOffset) && !p.IsHidden);
        if (index < 0)
        {
            index = points.FindIndex(p => !p.IsHidden);
            if (index < 0)
            {
                return null;
            }
        }
        var point = points[index];
        var end = points.Skip(index + 1).Select(p => p.Offset).Where(o => o > point.Offset).DefaultIfEmpty(int.MaxValue).First();
        return (new SourceLine(_pdb.GetString(_pdb.GetDocument(point.Document).Name), point.StartLine), point.Offset, end);
    }

    /// <summary>The line of the statement at <paramref name="ilOffset"/> in the method (0: its first statement).</summary>
    public SourceLine? LineOf(int token, int ilOffset) => Statement(token, ilOffset)?.Line;

    /// <summary>The attributes of the method, or of its declaring type, as (attribute type's full name, its first string argument or null).</summary>
    public IReadOnlyList<(string Attribute, string? Template)> Attributes(int token, bool ofDeclaringType)
    {
        var method = _metadata.GetMethodDefinition(MethodHandle(token));
        var attributes = ofDeclaringType ? _metadata.GetTypeDefinition(method.GetDeclaringType()).GetCustomAttributes() : method.GetCustomAttributes();
        var found = new List<(string, string?)>();
        foreach (var handle in attributes)
        {
            var attribute = _metadata.GetCustomAttribute(handle);
            var type = AttributeType(attribute);
            var blob = _metadata.GetBlobReader(attribute.Value);
            string? template = null;
            // ASP.NET Core MVC's route attributes: prolog 0x0001, then the template when the constructor takes one (a SerString; 0xFF for null).
            if (type.StartsWith("Microsoft.AspNetCore.Mvc.", StringComparison.Ordinal) && blob.Length > 4 && blob.ReadUInt16() == 1 && blob.RemainingBytes > 2)
            {
                template = blob.ReadSerializedString();
            }
            found.Add((type, template));
        }
        return found;
    }

    /// <summary>The module's types (compiler-generated ones included: a closure's lambdas are methods of one).</summary>
    public IEnumerable<ModuleType> Types() => _metadata.TypeDefinitions.Select(handle =>
    {
        var type = _metadata.GetTypeDefinition(handle);
        return new ModuleType(TypeName(handle), type.BaseType.IsNil ? null : TypeName(type.BaseType),
            [.. type.GetInterfaceImplementations().Select(i => TypeName(_metadata.GetInterfaceImplementation(i).Interface))],
            [.. type.GetMethods().Select(m => MetadataTokens.GetToken(m))]);
    });

    /// <summary>
    /// Whether <paramref name="token"/> is a method defined in this module: a trace can pair a code address's module with a
    /// token from another (a method whose load event it missed, attributed by address), and reading such a token here
    /// reads past the method table (BadImageFormatException "Read out of bounds").
    /// </summary>
    public bool Defines(int token) => (token >>> 24) == 0x06 && (token & 0x00FFFFFF) is var row && row >= 1 && row <= _metadata.MethodDefinitions.Count;

    /// <summary>Whether the method has IL of its own (not abstract, not an interface's, not extern).</summary>
    public bool HasBody(int token) => _metadata.GetMethodDefinition(MethodHandle(token)).RelativeVirtualAddress != 0;

    /// <summary>Whether a call to the method may land in an override or an implementation (virtual, abstract or an interface's).</summary>
    public bool IsVirtual(int token) => (_metadata.GetMethodDefinition(MethodHandle(token)).Attributes & MethodAttributes.Virtual) != 0;

    /// <summary>Whether the method is a public instance method the developer named (not static, not a property accessor or constructor): what MVC takes for an action.</summary>
    public bool IsPublicInstance(int token) =>
        _metadata.GetMethodDefinition(MethodHandle(token)).Attributes is var a && (a & MethodAttributes.MemberAccessMask) == MethodAttributes.Public && (a & MethodAttributes.Static) == 0 && (a & MethodAttributes.SpecialName) == 0;

    /// <summary>The full names of the method's parameters' types ("Microsoft.AspNetCore.Http.HttpContext"; generic arguments dropped).</summary>
    public IReadOnlyList<string> ParameterTypes(int token) =>
        _metadata.GetMethodDefinition(MethodHandle(token)).DecodeSignature(new TypeNames(this), null).ParameterTypes;

    /// <summary>The full name of the type the method returns ("Shop.DetailsModel" for a Razor page's get_Model).</summary>
    public string ReturnType(int token) => _metadata.GetMethodDefinition(MethodHandle(token)).DecodeSignature(new TypeNames(this), null).ReturnType;

    /// <summary>
    /// The string arguments of the attributes on the type that declares <paramref name="methodToken"/>, by attribute type
    /// (a Razor page's [RazorCompiledItemMetadata("RouteTemplate", "{id:int}")] gives ("...RazorCompiledItemMetadataAttribute", ["RouteTemplate", "{id:int}"])).
    /// </summary>
    public IReadOnlyList<(string Attribute, IReadOnlyList<string?> Strings)> TypeStringAttributes(int methodToken) =>
        StringAttributes(_metadata.GetTypeDefinition(_metadata.GetMethodDefinition(MethodHandle(methodToken)).GetDeclaringType()).GetCustomAttributes());

    /// <summary>The string (and typeof, as the type's name) arguments of the assembly's attributes: Razor's [assembly: RazorCompiledItem(typeof(Page), "mvc.1.0.razor-page", "/Pages/Index.cshtml")].</summary>
    public IReadOnlyList<(string Attribute, IReadOnlyList<string?> Strings)> AssemblyStringAttributes() =>
        StringAttributes(_metadata.GetAssemblyDefinition().GetCustomAttributes());

    private List<(string Attribute, IReadOnlyList<string?> Strings)> StringAttributes(CustomAttributeHandleCollection attributes)
    {
        var found = new List<(string, IReadOnlyList<string?>)>();
        foreach (var handle in attributes)
        {
            var attribute = _metadata.GetCustomAttribute(handle);
            try
            {
                var value = attribute.DecodeValue(new AttributeArguments(this));
                found.Add((AttributeType(attribute), [.. value.FixedArguments.Select(a => a.Value as string)]));
            }
            catch (Exception e) when (e is BadImageFormatException or InvalidOperationException or NotSupportedException)
            {
                // An argument of an enum type from another assembly cannot be decoded without it: not a string anyway.
            }
        }
        return found;
    }

    /// <summary>
    /// The MoveNext of the state machine the compiler made of an async method or an iterator (its
    /// [AsyncStateMachine(typeof(...))] names it): the method's own IL only starts it, the code the developer wrote is there.
    /// </summary>
    public int? StateMachineMoveNext(int token)
    {
        if (!_moveNexts.TryGetValue(token, out var moveNext))
        {
            _moveNexts[token] = moveNext = FindMoveNext(token);
        }
        return moveNext;
    }

    private int? FindMoveNext(int token)
    {
        foreach (var handle in _metadata.GetMethodDefinition(MethodHandle(token)).GetCustomAttributes())
        {
            var attribute = _metadata.GetCustomAttribute(handle);
            if (AttributeType(attribute) is not ("System.Runtime.CompilerServices.AsyncStateMachineAttribute" or "System.Runtime.CompilerServices.IteratorStateMachineAttribute" or "System.Runtime.CompilerServices.AsyncIteratorStateMachineAttribute"))
            {
                continue;
            }
            var blob = _metadata.GetBlobReader(attribute.Value);
            if (blob.ReadUInt16() != 1 || blob.ReadSerializedString() is not { } machine)
            {
                continue;
            }
            return _metadata.TypeDefinitions
                .Where(t => TypeName(t) == machine)
                .SelectMany(t => _metadata.GetTypeDefinition(t).GetMethods())
                .Where(m => _metadata.GetString(_metadata.GetMethodDefinition(m).Name) == "MoveNext")
                .Select(m => (int?)MetadataTokens.GetToken(m))
                .FirstOrDefault();
        }
        return null;
    }

    /// <summary>
    /// The methods whose statements all lie in the given span of <paramref name="document"/> (1-based lines, 0-based
    /// columns as Roslyn gives them, made 1-based): a lambda's body compiles to such a method (an async lambda's to its
    /// state machine's MoveNext), and so does any lambda nested in it. Earliest statement first.
    /// </summary>
    public IReadOnlyList<int> MethodsWithin(string document, (int Line, int Column) start, (int Line, int Column) end)
    {
        if (_pdb is null)
        {
            return [];
        }
        var found = new List<(int Token, int Line, int Column)>();
        foreach (var handle in _pdb.MethodDebugInformation)
        {
            var points = _pdb.GetMethodDebugInformation(handle).GetSequencePoints().Where(p => !p.IsHidden).ToList();
            if (points.Count == 0 || points.Any(p => _pdb.GetString(_pdb.GetDocument(p.Document).Name) != document))
            {
                continue;
            }
            if (points.All(p => (p.StartLine, p.StartColumn).CompareTo(start) >= 0 && (p.EndLine, p.EndColumn).CompareTo(end) <= 0))
            {
                found.Add((MetadataTokens.GetToken(handle.ToDefinitionHandle()), points.Min(p => p.StartLine), points.Where(p => p.StartLine == points.Min(q => q.StartLine)).Min(p => p.StartColumn)));
            }
        }
        return [.. found.OrderBy(f => f.Line).ThenBy(f => f.Column).Select(f => f.Token)];
    }

    /// <summary>The source documents the PDB names, for the files present on this machine.</summary>
    public IReadOnlyList<string> Documents() => _pdb is null ? [] : [.. _pdb.Documents.Select(d => _pdb.GetString(_pdb.GetDocument(d).Name)).Where(File.Exists)];

    private string AttributeType(CustomAttribute attribute) => attribute.Constructor.Kind switch
    {
        HandleKind.MemberReference => TypeName(_metadata.GetMemberReference((MemberReferenceHandle)attribute.Constructor).Parent),
        HandleKind.MethodDefinition => TypeName(_metadata.GetMethodDefinition((MethodDefinitionHandle)attribute.Constructor).GetDeclaringType()),
        _ => "",
    };

    private ILCall Call(int offset, int token)
    {
        var handle = MetadataTokens.EntityHandle(token);
        switch (handle.Kind)
        {
            case HandleKind.MethodDefinition:
                return new ILCall(offset, MethodName(token), token);
            case HandleKind.MemberReference:
                var reference = _metadata.GetMemberReference((MemberReferenceHandle)handle);
                return new ILCall(offset, $"{TypeName(reference.Parent)}.{_metadata.GetString(reference.Name)}", null);
            case HandleKind.MethodSpecification:
                var specification = _metadata.GetMethodSpecification((MethodSpecificationHandle)handle);
                return Call(offset, MetadataTokens.GetToken(specification.Method)) with { TypeArguments = specification.DecodeSignature(new TypeNames(this), null) };
            default:
                return new ILCall(offset, "?", null);
        }
    }

    private string TypeName(EntityHandle handle)
    {
        switch (handle.Kind)
        {
            case HandleKind.TypeDefinition:
                var definition = _metadata.GetTypeDefinition((TypeDefinitionHandle)handle);
                var declaring = definition.GetDeclaringType();
                return declaring.IsNil
                    ? Qualified(_metadata.GetString(definition.Namespace), _metadata.GetString(definition.Name))
                    : $"{TypeName(declaring)}+{_metadata.GetString(definition.Name)}";
            case HandleKind.TypeReference:
                var reference = _metadata.GetTypeReference((TypeReferenceHandle)handle);
                return reference.ResolutionScope.Kind == HandleKind.TypeReference
                    ? $"{TypeName(reference.ResolutionScope)}+{_metadata.GetString(reference.Name)}"
                    : Qualified(_metadata.GetString(reference.Namespace), _metadata.GetString(reference.Name));
            case HandleKind.TypeSpecification:
                // A generic instance: GENERICINST (CLASS|VALUETYPE) TypeDefOrRef args...; the generic type names it.
                var signature = _metadata.GetBlobReader(_metadata.GetTypeSpecification((TypeSpecificationHandle)handle).Signature);
                if (signature.ReadSignatureTypeCode() == SignatureTypeCode.GenericTypeInstance)
                {
                    signature.ReadSignatureTypeCode();
                    return TypeName(signature.ReadTypeHandle());
                }
                return "?";
            case HandleKind.MethodDefinition:
                return TypeName(_metadata.GetMethodDefinition((MethodDefinitionHandle)handle).GetDeclaringType());
            default:
                return "?";
        }
    }

    private static string Qualified(string ns, string name) => ns.Length == 0 ? name : $"{ns}.{name}";

    private static MethodDefinitionHandle MethodHandle(int token) => MetadataTokens.MethodDefinitionHandle(token & 0x00FFFFFF);

    private static int OperandSize(OpCode opCode, ref BlobReader il) => opCode.OperandType switch
    {
        OperandType.InlineNone => 0,
        OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
        OperandType.InlineVar => 2,
        OperandType.InlineI8 or OperandType.InlineR => 8,
        OperandType.InlineSwitch => 4 * (int)il.ReadUInt32(),
        _ => 4,
    };

    public void Dispose()
    {
        _pdbProvider?.Dispose();
        _pe.Dispose();
    }

    /// <summary>A signature's types as full names: what a parameter's type is, not how it is instantiated.</summary>
    /// <summary>Decodes attribute arguments far enough to read their strings (an enum argument is read as its underlying int).</summary>
    private sealed class AttributeArguments(ModuleSource module) : ICustomAttributeTypeProvider<string>
    {
        public string GetPrimitiveType(PrimitiveTypeCode typeCode) => $"System.{typeCode}";
        public string GetSystemType() => "System.Type";
        public string GetSZArrayType(string elementType) => $"{elementType}[]";
        public string GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) => module.TypeName(handle);
        public string GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind) => module.TypeName(handle);
        public string GetTypeFromSerializedName(string name) => name;
        public PrimitiveTypeCode GetUnderlyingEnumType(string type) => PrimitiveTypeCode.Int32;
        public bool IsSystemType(string type) => type == "System.Type";
    }

    private sealed class TypeNames(ModuleSource module) : ISignatureTypeProvider<string, object?>
    {
        public string GetPrimitiveType(PrimitiveTypeCode typeCode) => $"System.{typeCode}";
        public string GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) => module.TypeName(handle);
        public string GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind) => module.TypeName(handle);
        public string GetTypeFromSpecification(MetadataReader reader, object? genericContext, TypeSpecificationHandle handle, byte rawTypeKind) => module.TypeName(handle);
        public string GetSZArrayType(string elementType) => $"{elementType}[]";
        public string GetArrayType(string elementType, ArrayShape shape) => $"{elementType}[]";
        public string GetByReferenceType(string elementType) => elementType;
        public string GetPointerType(string elementType) => $"{elementType}*";
        public string GetPinnedType(string elementType) => elementType;
        public string GetGenericInstantiation(string genericType, ImmutableArray<string> typeArguments) => genericType;
        public string GetGenericMethodParameter(object? genericContext, int index) => $"!!{index}";
        public string GetGenericTypeParameter(object? genericContext, int index) => $"!{index}";
        public string GetModifiedType(string modifier, string unmodifiedType, bool isRequired) => unmodifiedType;
        public string GetFunctionPointerType(MethodSignature<string> signature) => "method*";
    }
}
