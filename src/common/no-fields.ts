/** The query of a route that takes none (`@Query() _query: NoQuery`): any parameter is an unknown field (4000). */
export class NoQuery {}

/** The body of a route that takes none (`@Body() _body: NoBody`): absent, empty or `{}`; any member is unknown (4000). */
export class NoBody {}
