"""The lark grammar of SQL row pattern recognition (R010) in the form Trino writes it: WITH, VALUES and
subquery inputs, the outer SELECT / WHERE / ORDER BY, and MATCH_RECOGNIZE (LALR; keywords in any case)."""

GRAMMAR = r"""
start: with_clause? query ";"?
expr_start: expr

query: SELECT select_list FROM relation mr alias? where_clause? outer_order?
select_list: select_item ("," select_item)*
select_item: STAR -> sel_star
           | NAME "." STAR -> sel_qstar
           | expr (AS? NAME)? -> sel_expr
alias: AS? NAME column_list?
where_clause: WHERE expr
outer_order: ORDER BY sort_key ("," sort_key)*

with_clause: WITH with_item ("," with_item)*
with_item: NAME column_list? AS "(" relation_body ")"
relation: NAME (AS? NAME column_list?)? -> rel_table
        | "(" relation_body ")" (AS? NAME column_list?)? -> rel_sub
?relation_body: values | subselect
values: VALUES value_row ("," value_row)*
value_row: "(" expr ("," expr)+ ")"
         | expr
subselect: SELECT sub_list FROM relation where_clause?
sub_list: STAR -> sub_all
        | sub_item ("," sub_item)* -> sub_items
sub_item: expr (AS? NAME)?
column_list: "(" NAME ("," NAME)* ")"

mr: MATCH_RECOGNIZE "(" partition? order? measures? rows? skip? pattern_clause subset? define? ")"

partition: PARTITION BY expr ("," expr)*
order: ORDER BY sort_key ("," sort_key)*
sort_key: expr (ASC | DESC)?
measures: MEASURES measure ("," measure)*
measure: expr AS NAME

rows: ONE ROW PER MATCH -> one_row
    | ALL ROWS PER MATCH empty_opt? -> all_rows
    | ALL MATCHES strategy? -> all_matches
empty_opt: SHOW EMPTY MATCHES -> show_empty
         | OMIT EMPTY MATCHES -> omit_empty
         | WITH UNMATCHED ROWS -> with_unmatched
strategy: CONTIGUOUS -> contiguous
        | SKIP_TILL_NEXT_MATCH -> skip_till_next
        | SKIP_TILL_ANY_MATCH -> skip_till_any

skip: AFTER MATCH SKIP PAST LAST ROW -> skip_past_last
    | AFTER MATCH SKIP TO NEXT ROW -> skip_next_row
    | AFTER MATCH SKIP TO FIRST NAME -> skip_first
    | AFTER MATCH SKIP TO LAST NAME -> skip_last
    | AFTER MATCH SKIP TO NAME -> skip_last

pattern_clause: PATTERN palt within?
within: WITHIN INT NAME? EXCLUSIVE? -> within
      | WITHIN INTERVAL STRING NAME EXCLUSIVE? -> within_interval

?palt: pseq ("|" pseq)* -> p_alt
?pseq: pquant+ -> p_seq
?pquant: pprimary quantifier?
quantifier: (STAR | PLUS | QMARK | "{" INT "}" | "{" INT? "," INT? "}") QMARK?
pprimary: NAME -> p_var
        | "(" ")" -> p_empty
        | "(" palt ")" -> p_group
        | CARET -> p_anchor
        | DOLLAR -> p_anchor
        | EXCL_OPEN palt EXCL_CLOSE -> p_exclude
        | PERMUTE "(" palt ("," palt)* ")" -> p_permute

subset: SUBSET subset_item ("," subset_item)*
subset_item: NAME "=" "(" NAME ("," NAME)* ")"
define: DEFINE define_item ("," define_item)*
define_item: NAME AS expr

?expr: or_expr
?or_expr: and_expr (OR and_expr)* -> or_
?and_expr: not_expr (AND not_expr)* -> and_
?not_expr: NOT not_expr -> not_
         | cmp
?cmp: sum
    | sum CMP_OP sum -> compare
    | sum IS NULL -> is_null
    | sum IS NOT NULL -> is_not_null
    | sum BETWEEN sum AND sum -> between
?sum: product
    | sum ADD_OP product -> binop
?product: unary
        | product MUL_OP unary -> binop
?unary: primary
      | MINUS unary -> neg
?primary: INT -> int_lit
        | DECIMAL -> dec_lit
        | STRING -> str_lit
        | TRUE -> true_lit
        | FALSE -> false_lit
        | NULL -> null_lit
        | NAME -> col
        | NAME "." NAME -> qcol
        | "(" expr ")"
        | NAV_FN "(" expr ("," INT)? ")" -> nav
        | SEMANTICS NAV_FN "(" expr ("," INT)? ")" -> nav_sem
        | CLASSIFIER "(" NAME? ")" -> classifier
        | MATCH_NUMBER "(" ")" -> match_number
        | AGG_FN "(" agg_arg ")" -> agg
        | SEMANTICS AGG_FN "(" agg_arg ")" -> agg_sem
agg_arg: expr -> agg_expr
       | STAR -> agg_star
       | NAME "." STAR -> agg_var_star

MINUS: "-"
ADD_OP: "+" | "-"
MUL_OP: "*" | "/" | "%"
STAR: "*"
PLUS: "+"
QMARK: "?"
CARET: "^"
DOLLAR: "$"
EXCL_OPEN: "{-"
EXCL_CLOSE: "-}"
CMP_OP: "=" | "!=" | "<>" | "<=" | ">=" | "<" | ">"

SELECT.2: /select\b/i
FROM.2: /from\b/i
AS.2: /as\b/i
MATCH_RECOGNIZE.2: /match_recognize\b/i
PARTITION.2: /partition\b/i
BY.2: /by\b/i
ORDER.2: /order\b/i
ASC.2: /asc\b/i
DESC.2: /desc\b/i
MEASURES.2: /measures\b/i
ONE.2: /one\b/i
ROW.2: /row\b/i
ROWS.2: /rows\b/i
PER.2: /per\b/i
MATCH.2: /match\b/i
MATCHES.2: /matches\b/i
ALL.2: /all\b/i
SHOW.2: /show\b/i
OMIT.2: /omit\b/i
EMPTY.2: /empty\b/i
WITH.2: /with\b/i
WHERE.2: /where\b/i
VALUES.2: /values\b/i
UNMATCHED.2: /unmatched\b/i
CONTIGUOUS.2: /contiguous\b/i
SKIP_TILL_NEXT_MATCH.3: /skip_till_next_match\b/i
SKIP_TILL_ANY_MATCH.3: /skip_till_any_match\b/i
AFTER.2: /after\b/i
SKIP.2: /skip\b/i
PAST.2: /past\b/i
LAST.2: /last\b/i
FIRST.2: /first\b/i
TO.2: /to\b/i
NEXT.2: /next\b/i
PATTERN.2: /pattern\b/i
WITHIN.2: /within\b/i
INTERVAL.2: /interval\b/i
EXCLUSIVE.2: /exclusive\b/i
PERMUTE.2: /permute\b/i
SUBSET.2: /subset\b/i
DEFINE.2: /define\b/i
OR.2: /or\b/i
AND.2: /and\b/i
NOT.2: /not\b/i
IS.2: /is\b/i
NULL.2: /null\b/i
BETWEEN.2: /between\b/i
TRUE.2: /true\b/i
FALSE.2: /false\b/i
NAV_FN.3: /(prev|next|first|last)(?=\s*\()/i
SEMANTICS.3: /(running|final)\b/i
CLASSIFIER.2: /classifier\b/i
MATCH_NUMBER.3: /match_number\b/i
AGG_FN.3: /(sum|avg|min|max|count)(?=\s*\()/i

NAME: /[A-Za-z_][A-Za-z_0-9]*/ | /"[^"]+"/
INT: /[0-9]+/
DECIMAL: /[0-9]+\.[0-9]+/
STRING: /'([^']|'')*'/
COMMENT: /--[^\n]*/
BLOCK_COMMENT: /\/\*(.|\n)*?\*\//

%import common.WS
%ignore WS
%ignore COMMENT
%ignore BLOCK_COMMENT
"""
