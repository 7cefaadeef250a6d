import { IReturn } from "@servicestack/client";

/**
 * Request and response DTOs as a ServiceStack client project declares them by hand (the generated
 * ones are tested in native-types.test.ts): each request knows its name, its verb and its response.
 */
function requestDto<Response>(name: string, method: string, response: new () => Response) {
	return class implements IReturn<Response> {
		getTypeName() {
			return name;
		}
		getMethod() {
			return method;
		}
		createResponse() {
			return new response();
		}
	};
}

export class AuthenticateResponse {
	UserId?: string;
	SessionId?: string;
	UserName?: string;
	DisplayName?: string;
}

export class Authenticate extends requestDto("Authenticate", "POST", AuthenticateResponse) {
	provider?: string;
	UserName?: string;
	Password?: string;
	RememberMe?: boolean;
	constructor(init?: Partial<Authenticate>) {
		super();
		Object.assign(this, init);
	}
}

export class User {
	Id?: string;
	FirstName?: string;
	LastName?: string;
}

export class FindUser extends requestDto("FindUser", "GET", User) {
	Id?: string;
	constructor(init?: Partial<FindUser>) {
		super();
		Object.assign(this, init);
	}
}

export class UpdateUser extends requestDto("UpdateUser", "PUT", User) {
	Id?: string;
	FirstName?: string;
	LastName?: string;
	constructor(init?: Partial<UpdateUser>) {
		super();
		Object.assign(this, init);
	}
}

export class Connection {
	Id?: string;
	OwnerId?: string;
	ConnectToId?: string;
}

export class DeleteConnection extends requestDto("DeleteConnection", "DELETE", Connection) {
	Id?: string;
	OwnerId?: string;
	constructor(init?: Partial<DeleteConnection>) {
		super();
		Object.assign(this, init);
	}
}

export class Post {
	Id?: string;
	Content?: string;
	AuthorId?: string;
}

export class FindPost extends requestDto("FindPost", "GET", Post) {
	Id?: string;
	constructor(init?: Partial<FindPost>) {
		super();
		Object.assign(this, init);
	}
}

export class CreatePost extends requestDto("CreatePost", "POST", Post) {
	AuthorId?: string;
	Content?: string;
	Tags?: string[];
	constructor(init?: Partial<CreatePost>) {
		super();
		Object.assign(this, init);
	}
}
