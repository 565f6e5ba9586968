/**
 * The query of a route that takes no parameters (`@Query() _query: NoQuery`): the validation pipe
 * refuses any parameter as an unknown field (4000), as it does for a DTO's unknown ones.
 */
export class NoQuery {}

/**
 * The body of a route that takes none (`@Body() _body: NoBody`): none, an empty one or `{}` is
 * fine; members are unknown fields (4000).
 */
export class NoBody {}
